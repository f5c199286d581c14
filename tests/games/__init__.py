"""Tests of patience_gym/games/."""
