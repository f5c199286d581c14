"""Tests of agents/common/."""
