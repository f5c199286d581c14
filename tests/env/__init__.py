"""Tests of patience_gym/env.py."""
