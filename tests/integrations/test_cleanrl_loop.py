"""A CleanRL-style loop over the AEC env: PettingZoo's documented ``agent_iter`` loop feeding a masked PPO update.

Nothing of ours between the library's recipe and the env: ``spades_env.env()``,
``agent_iter``/``last``/``step``, ``action_space(agent).sample(mask)``, and a
single-file PPO (one shared policy for every seat, masked logits, GAE per seat,
clipped objective) as CleanRL writes it.
"""

from __future__ import annotations

import pytest

import spades_env

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.distributions import Categorical  # noqa: E402

ROLLOUT_DECISIONS = 512
GAMMA, GAE_LAMBDA, CLIP, EPOCHS, MINIBATCH = 0.99, 0.95, 0.2, 2, 128


def test_pettingzoo_documented_loop_with_masked_sampling():
    env = spades_env.env()
    env.reset(seed=42)
    steps = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = env.action_space(agent).sample(mask)
            assert mask[action] == 1
            steps += 1
        env.step(action)
    assert steps >= 13 * 4 and not env.agents  # one hand played out, every agent removed
    env.close()


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_size, 64), nn.Tanh())
        self.actor = nn.Linear(64, num_actions)
        self.critic = nn.Linear(64, 1)

    def get_action_and_value(self, x, mask, action=None):
        hidden = self.body(x)
        logits = self.actor(hidden).masked_fill(~mask, -1e8)  # illegal actions never sampled
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(hidden).squeeze(-1)


def collect(env, agent, decisions: int, seed: int):
    """Run the AEC loop until ``decisions`` decisions; each seat's reward goes to its own previous decision."""
    rows = []  # obs, mask, action, logprob, value, reward, done, seat
    last_row: dict[str, int] = {}
    episode = 0
    env.reset(seed=seed)
    while len(rows) < decisions:
        for name in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            if name in last_row:
                rows[last_row[name]][5] += reward
                rows[last_row[name]][6] = termination or truncation
            if termination or truncation:
                env.step(None)
                continue
            obs = torch.as_tensor(observation["observation"])
            mask = torch.as_tensor(observation["action_mask"], dtype=torch.bool)
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(obs, mask)
            last_row[name] = len(rows)
            rows.append([obs, mask, action, logprob, value, 0.0, False, name])
            env.step(int(action))
        episode += 1
        last_row.clear()
        env.reset(seed=seed + episode)
    return rows


def advantages(rows):
    """GAE along each seat's own decisions (the next decision of the same seat is its next state)."""
    adv = torch.zeros(len(rows))
    by_seat: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_seat.setdefault(row[7], []).append(i)
    for indices in by_seat.values():
        running = 0.0
        for k in reversed(range(len(indices))):
            i = indices[k]
            done = rows[i][6] or k == len(indices) - 1
            next_value = 0.0 if done else float(rows[indices[k + 1]][4])
            delta = rows[i][5] + GAMMA * next_value - float(rows[i][4])
            running = delta + GAMMA * GAE_LAMBDA * (0.0 if done else running)
            adv[i] = running
    return adv


def test_cleanrl_style_ppo_over_the_aec_env():
    torch.manual_seed(0)
    env = spades_env.env()
    agent = Agent(env.observation_space("player_0")["observation"].shape[0], env.action_space("player_0").n)
    optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4)
    rows = collect(env, agent, ROLLOUT_DECISIONS, seed=0)
    obs = torch.stack([r[0] for r in rows])
    masks = torch.stack([r[1] for r in rows])
    actions = torch.stack([r[2] for r in rows])
    logprobs = torch.stack([r[3] for r in rows])
    values = torch.stack([r[4] for r in rows])
    adv = advantages(rows)
    returns = adv + values
    assert masks[torch.arange(len(rows)), actions].all()  # every sampled action was legal
    assert any(r[5] != 0 for r in rows) and any(r[6] for r in rows)  # hand rewards and episode ends reached
    for _ in range(EPOCHS):
        for start in range(0, len(rows), MINIBATCH):
            idx = torch.arange(start, min(start + MINIBATCH, len(rows)))
            _, new_logprob, entropy, new_value = agent.get_action_and_value(obs[idx], masks[idx], actions[idx])
            ratio = (new_logprob - logprobs[idx]).exp()
            mb_adv = (adv[idx] - adv[idx].mean()) / (adv[idx].std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - CLIP, 1 + CLIP)).mean()
            loss = pg_loss + 0.5 * ((new_value - returns[idx]) ** 2).mean() - 0.01 * entropy.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            assert torch.isfinite(loss)
    assert all(torch.isfinite(p).all() for p in agent.parameters())
