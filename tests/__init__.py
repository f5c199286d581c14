"""The test suite, laid out as the code is (tests/<folder>/ holds the tests of <folder>).

A package, as is each subfolder, so that pytest names every test module by its path
(``tests.games.test_klondike``) and shared code is imported as ``tests.helpers``.
"""
