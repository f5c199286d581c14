"""Tests of patience_gym/render/."""
