"""Tests of agents/training/."""
