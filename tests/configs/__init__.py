"""Tests of configs/: the shipped config files."""
