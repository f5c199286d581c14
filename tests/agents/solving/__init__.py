"""Tests of agents/solving/."""
