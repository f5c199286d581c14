"""Tests of agents/policies/."""
