"""Tests of patience_gym/vector.py."""
