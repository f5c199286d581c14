"""Tests of the documentation (docs/ and README.md): what it says stays true to the code."""
