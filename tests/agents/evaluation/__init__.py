"""Tests of agents/evaluation/."""
