"""A table in the browser: play against the agents, watch them, replay any game (``spades-web``).

``python -m spades_env.web`` (also ``spades-web``; the ``[web]`` extra) serves
one page on 127.0.0.1 (``--host`` to listen elsewhere). Everything the page
needs ships in the package (no CDN). Each browser tab opens a WebSocket and
holds at most one table; tables are isolated and their number is limited
(``--max-tables``).

The protocol (JSON objects, one per WebSocket message, each with ``type``;
unknown types or fields, oversized messages and bad values get an
``{"type": "error", "message": ...}`` naming the problem and change nothing):

page to server
    ``new`` (``rules``: a preset; ``seats``: ``"human"`` at most once, else
    agent names the server offers; ``episode``: ``"game"`` or ``"hand"``;
    ``seed``: an int or null; ``pace_ms``), ``act`` (``action``: an action
    id), ``move`` (``text``: a move typed as at the terminal, ``AS``,
    ``10h``, ``bid 4``, ``4`` while bidding, ``nil``), ``hint``, ``continue`` (after a hand's end), ``pace`` (``ms``: the
    wait before each agent move, 0..5000), ``save`` (the record),
    ``replay`` (``record``: the JSON of a game record, uploaded), ``seek``
    (``index``: decisions from the deal), ``viewer`` (``seat``: an int, or
    null for every hand), ``resume`` (``token``: come back to the table
    whose tab went away less than ``reconnect_s``, 60 s by default, ago).
server to page
    ``hello`` (presets, agents, limits), ``table`` (``token``: the new
    table's secret for ``resume``, sent to its tab alone; ``pace_ms``), ``state`` (``view``: see
    :mod:`spades_env.web.view`), ``hint`` (``action``, ``name``, ``agent``),
    ``record`` (``record``), ``error`` (``message``).

The pieces: :mod:`~spades_env.web.view` (a table as JSON),
:mod:`~spades_env.web.session` (live and replay tables, no web),
:mod:`~spades_env.web.server` (the Starlette app and the command line).
"""
