"""``core.actions.mask_array``: every legal bitmask becomes a fresh, writable int8 mask with exactly its bits set,
whether it is built or read from the cache of masks already seen."""

from __future__ import annotations

import numpy as np

from spades_env.core.actions import NUM_ACTIONS, mask_array


def test_a_mask_has_exactly_the_legal_bits_whether_built_or_cached():
    rng = np.random.default_rng(3)
    bitmasks = [0, 1, 1 << (NUM_ACTIONS - 1), (1 << NUM_ACTIONS) - 1]
    bitmasks += [int(x) for x in rng.integers(0, 2**62, size=50)]
    bitmasks += [int(x) << 30 for x in rng.integers(0, 2**58, size=50)]  # bid actions too
    for _ in range(2):  # the second pass reads the cache
        for legal in bitmasks:
            mask = mask_array(legal)
            assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
            assert np.flatnonzero(mask).tolist() == [a for a in range(NUM_ACTIONS) if (legal >> a) & 1]


def test_a_mask_is_fresh_so_writing_to_it_changes_no_later_mask():
    legal = (1 << 5) | (1 << 40)
    first = mask_array(legal)
    first[:] = 1  # writable, and the caller's own
    again = mask_array(legal)
    assert np.flatnonzero(again).tolist() == [5, 40]
    assert again is not first and not np.shares_memory(again, first)


def test_observed_masks_are_fresh_and_writable_each_time():
    """observe() builds its mask inline (not through mask_array): each call's mask is the caller's own."""
    import spades_env

    env = spades_env.raw_env()
    env.reset(seed=4)
    agent = env.agent_selection
    first = env.observe(agent)["action_mask"]
    assert first.flags.writeable and first.dtype == np.int8 and first.shape == (NUM_ACTIONS,)
    expected = np.flatnonzero(first).tolist()
    first[:] = 0
    again = env.observe(agent)["action_mask"]
    assert np.flatnonzero(again).tolist() == expected == env.legal_actions()
    assert not np.shares_memory(again, first)
