"""Tests of patience_gym/solver.py."""
