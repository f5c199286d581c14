"""Tests of patience_gym/native.py and the C++ engine under src/native/."""
