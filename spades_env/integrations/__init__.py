"""Adapters to other RL libraries; each module imports its library lazily and names the extra that installs it."""
