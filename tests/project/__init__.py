"""Project-wide checks: house style, the layout of the tests, the import graph."""
