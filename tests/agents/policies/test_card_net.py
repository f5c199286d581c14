"""The card-token encoder of the expert-iteration net (agents/policies/card_net.py): every variant's
observation split into one token per card, and the net a drop-in for the MLP."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.policies.card_net import CARDS, CardNet, card_columns
from patience_gym.agents.policies.exit_net import (
    ExitPolicy,
    NetConfig,
    build_net,
    load_net,
    play_many,
    save_net,
)
from patience_gym.games import VARIANTS
from patience_gym.move_features import move_features


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.env_name)
def test_every_number_of_the_observation_is_read_once(variant: Any) -> None:
    """Each column of the observation lies in exactly one card's token or among the shared numbers."""
    env = gym.make(f"patience_gym/{variant.env_name}")
    cards, shared = card_columns(env.unwrapped.layout)  # type: ignore[attr-defined]
    assert cards.shape[0] == CARDS
    every = np.concatenate([cards.ravel(), shared])
    assert sorted(every.tolist()) == list(range(env.observation_space.shape[0]))  # type: ignore[index]


def test_a_cards_token_holds_what_the_observation_says_of_that_card() -> None:
    """Nestor: card c's token is its place one-hot and its depth, as the named segments say."""
    env = gym.make("patience_gym/Nestor-v0")
    obs, _ = env.reset(seed=4)
    layout = env.unwrapped.layout  # type: ignore[attr-defined]
    cards, shared = card_columns(layout)
    place, depth = layout.view(obs, "card_place"), layout.view(obs, "depth")
    for c in (0, 17, 51):
        assert np.array_equal(obs[cards[c]], np.concatenate([place[c], [depth[c]]]))
    assert np.array_equal(obs[shared], layout.view(obs, "reserve_turned"))


def test_two_copies_and_place_major_planes_go_to_their_card() -> None:
    """The Kings' copies (slot 2 * card + k) and its rows' outer-card planes (8, 52) land in the
    token of their card."""
    env = gym.make("patience_gym/TheKings-v0")
    obs, _ = env.reset(seed=1)
    layout = env.unwrapped.layout  # type: ignore[attr-defined]
    cards, _ = card_columns(layout)
    place, outer = layout.view(obs, "card_place"), layout.view(obs, "outer_card")
    for c in range(CARDS):
        token = obs[cards[c]]
        assert np.array_equal(token[:18], np.concatenate([place[2 * c], place[2 * c + 1]]))
        assert np.array_equal(token[-8:], outer[:, c])


def _card_net(env_name: str) -> tuple[Any, gym.Env[Any, Any]]:
    env = gym.make(f"patience_gym/{env_name}")
    obs, _ = env.reset(seed=0)
    k = move_features(env.unwrapped).shape[1]  # type: ignore[arg-type]
    cfg = NetConfig(env_name, {}, obs.shape[0], env.action_space.n, k, hidden=16, encoder="cards")  # type: ignore[attr-defined]
    torch.manual_seed(0)
    return build_net(cfg), env


def test_the_card_net_scores_the_legal_moves_only_and_reloads_the_same(tmp_path: Any) -> None:
    torch.set_num_threads(1)
    net, env = _card_net("Congress-v0")
    assert isinstance(net, CardNet)
    net.eval()  # as loaded: the transformer's inference path
    obs, _ = env.reset(seed=2)
    moves = move_features(env.unwrapped)  # type: ignore[arg-type]
    mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
    with torch.no_grad():
        logits, value = net(torch.as_tensor(obs)[None], torch.as_tensor(moves)[None])
    assert torch.isfinite(logits[0]).numpy().tolist() == mask.tolist() and value.shape == (1, 2)
    save_net(tmp_path / "cards.pt", net)
    again, _ = load_net(tmp_path / "cards.pt")
    assert isinstance(again, CardNet)
    with torch.no_grad():
        assert torch.equal(again(torch.as_tensor(obs)[None], torch.as_tensor(moves)[None])[0], logits)


def test_the_card_net_plays_many_games_as_one_at_a_time() -> None:
    from patience_gym.agents.evaluation.evaluate import evaluate

    torch.set_num_threads(1)
    net, _ = _card_net("Nestor-v0")
    one = evaluate("Nestor-v0", ExitPolicy(net), episodes=6, seed=0)
    many = play_many(net, range(6))
    ours = [(e.won, e.foundation_cards, e.length) for e in one.episodes]
    assert ours == [(p.won, p.cards, p.length) for p in many]


def test_both_nets_read_legality_from_the_same_column() -> None:
    from patience_gym.agents.policies import card_net, exit_net

    assert card_net.LEGAL == exit_net.LEGAL


def test_an_unknown_encoder_is_refused_naming_the_encoders() -> None:
    cfg = NetConfig("Nestor-v0", {}, 781, 67, 10, encoder="graph")
    with pytest.raises(ValueError, match="one of mlp, cards, got 'graph'"):
        build_net(cfg)
