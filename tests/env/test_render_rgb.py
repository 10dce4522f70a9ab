"""render_mode="rgb_array": a picture of the table for videos (AEC env and Gym wrapper).

Gymnasium's ``RecordVideo`` and SB3's ``VecVideoRecorder`` hand the frames to
MoviePy; where MoviePy is not installed a stand-in ``ImageSequenceClip`` takes
them (the wrappers' own code runs unchanged), and a real video is written when
MoviePy is there.
"""

from __future__ import annotations

import sys
import types

import gymnasium
import numpy as np
import pytest

import spades_env
from spades_env import GYM_ENV_ID
from spades_env.render_image import IMAGE_HEIGHT, IMAGE_WIDTH, table_image

FRAME_SHAPE = (IMAGE_HEIGHT, IMAGE_WIDTH, 3)


def masked_first(env):
    return int(np.flatnonzero(env.action_masks())[0])


@pytest.mark.parametrize("rules", ["standard", "cutthroat3"])
def test_aec_frame_shape_dtype_and_it_changes_as_the_game_goes_on(rules):
    env = spades_env.raw_env(rules=rules, render_mode="rgb_array")
    assert env.render() is None  # before reset: nothing to draw
    env.reset(seed=0)
    frames = [env.render()]
    rng = np.random.default_rng(0)
    for _ in range(3):
        for _ in range(5):
            env.step(int(rng.choice(env.legal_actions())))
        frames.append(env.render())
    for frame in frames:
        assert frame.shape == FRAME_SHAPE and frame.dtype == np.uint8
    for before, after in zip(frames, frames[1:]):
        assert (before != after).any()


def test_aec_frame_is_the_spectators_view_of_every_hand():
    env = spades_env.raw_env(render_mode="rgb_array")
    env.reset(seed=2)
    np.testing.assert_array_equal(
        env.render(), table_image(env.hand, env.game.scores, env.game.bags, env.rules, names=env.possible_agents)
    )


def test_gym_frame_is_the_learners_view():
    env = gymnasium.make(GYM_ENV_ID, seat=1, render_mode="rgb_array")
    env.reset(seed=3)
    frame = env.render()
    aec = env.unwrapped.aec
    assert frame.shape == FRAME_SHAPE and frame.dtype == np.uint8
    np.testing.assert_array_equal(frame, aec.table_image(viewer=1))
    assert (frame != aec.table_image()).any()  # the other hands are hidden from the learner
    env.step(masked_first(env))
    assert (env.render() != frame).any()


def test_render_collection_gathers_a_frame_per_step():
    env = gymnasium.wrappers.RenderCollection(gymnasium.make(GYM_ENV_ID, render_mode="rgb_array"))
    env.reset(seed=0)
    for _ in range(3):
        env.step(masked_first(env.unwrapped))
    frames = env.render()
    assert len(frames) == 4 and all(f.shape == FRAME_SHAPE for f in frames)


@pytest.fixture
def clip_stand_in(monkeypatch):
    """A stand-in for MoviePy's ImageSequenceClip that keeps the frames it is given (unless MoviePy is installed)."""
    clips = []

    class ImageSequenceClip:
        def __init__(self, frames, fps):
            self.frames, self.fps = list(frames), fps
            clips.append(self)

        def write_videofile(self, path, logger=None):
            self.path = path

        def close(self):
            pass

    try:
        import moviepy  # noqa: F401

        return None
    except ImportError:
        pass
    names = ["moviepy", "moviepy.video", "moviepy.video.io", "moviepy.video.io.ImageSequenceClip"]
    for name in names:
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    sys.modules["moviepy.video.io.ImageSequenceClip"].ImageSequenceClip = ImageSequenceClip
    return clips


def test_record_video_records_the_episode(tmp_path, clip_stand_in):
    env = gymnasium.wrappers.RecordVideo(
        gymnasium.make(GYM_ENV_ID, render_mode="rgb_array"),
        str(tmp_path / "videos"),
        episode_trigger=lambda episode: True,
    )
    env.reset(seed=0)
    steps, done = 0, False
    while not done:
        _, _, terminated, truncated, _ = env.step(masked_first(env.unwrapped))
        steps += 1
        done = terminated or truncated
    env.close()
    if clip_stand_in is None:  # MoviePy installed: a real video file
        assert list((tmp_path / "videos").glob("*.mp4"))
    else:
        (clip,) = clip_stand_in
        assert len(clip.frames) == steps + 1 and clip.frames[0].shape == FRAME_SHAPE
        assert clip.fps == spades_env.SingleAgentSpadesEnv.metadata["render_fps"]


def test_sb3_vec_video_recorder_takes_frames(tmp_path, clip_stand_in):
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecVideoRecorder

    venv = VecVideoRecorder(
        make_vec_env(GYM_ENV_ID, n_envs=2, seed=0),
        str(tmp_path / "videos"),
        record_video_trigger=lambda step: step == 0,
        video_length=5,
    )
    venv.reset()
    for _ in range(6):
        masks = np.stack(venv.env_method("action_masks"))
        venv.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    venv.close()
    if clip_stand_in is None:
        assert list((tmp_path / "videos").glob("*.mp4"))
    else:
        (clip,) = clip_stand_in
        assert len(clip.frames) >= 5 and clip.frames[0].ndim == 3 and clip.frames[0].dtype == np.uint8
