"""Tests of patience_gym/core/."""
