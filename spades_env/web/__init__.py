"""A table in the browser: play against the agents, watch them, replay any game (``spades-web``).

``python -m spades_env.web`` (also ``spades-web``; the ``[web]`` extra) serves
one page on 127.0.0.1 (``--host`` to listen elsewhere). Everything the page
needs ships in the package (no CDN). Each browser tab opens a WebSocket and
sits at most at one table: its own, or another's by that table's invite
(several people at one table); tables are isolated and their number is
limited (``--max-tables``).

The protocol (JSON objects, one per WebSocket message, each with ``type``;
unknown types or fields, oversized messages and bad values get an
``{"type": "error", "message": ...}`` naming the problem and change nothing):

page to server
    ``new`` (``rules``: a preset; ``seats``: ``"human"`` for each person's
    seat, else agent names the server offers; ``seat``: the host's own
    person's seat, by default the first; ``episode``: ``"game"`` or
    ``"hand"``; ``seed``: an int or null; ``pace_ms``; ``spectators``:
    ``"off"``, ``"public"`` (they see what is played) or ``"hands"`` (every
    hand); ``substitute``: the agent that plays a person's seat once they
    have left), ``join`` (``invite``: the table's invite; ``seat``: a seat
    open for a person, null to watch, absent for the first open seat or,
    with none open, to watch),
    ``fill`` (host: ``seat``, or null for all, of the people's seats nobody
    is in, to the substitute), ``act`` (``action``: an action id), ``move``
    (``text``: a move typed as at the terminal, ``AS``, ``10h``, ``bid 4``,
    ``4`` while bidding, ``nil``), ``hint``, ``continue`` (after a hand's
    end; the table goes on once every person at it has), ``pace`` (host:
    ``ms``, the wait before each agent move, 0..5000), ``save`` (the record:
    once the game is over, or meanwhile to whoever sees every hand or is
    the one person at the table), ``replay`` (``record``: the JSON of a game
    record, uploaded), ``seek`` (``index``: decisions from the deal),
    ``viewer`` (``seat``: an int, or null for every hand), ``resume``
    (``token``: come back to the place whose tab went away less than
    ``reconnect_s``, 60 s by default, ago).
server to page
    ``hello`` (presets, agents and per preset those that cannot play it, spectator choices, limits), ``table``
    (``token``: this tab's secret for ``resume``, sent to it alone;
    ``pace_ms``; ``seat``: its seat, null when watching; ``host``;
    ``invite``: the table's invite, null when it takes nobody else),
    ``state`` (``view``: see :mod:`spades_env.web.view`, with the people's
    seats and whether each is here, away or open, the spectators' count, and
    ``waiting``: the people yet to go on after a hand's end), ``hint``
    (``action``, ``name``, ``agent``), ``record`` (``record``), ``error``
    (``message``).

The pieces: :mod:`~spades_env.web.view` (a table as JSON),
:mod:`~spades_env.web.session` (live and replay tables, no web),
:mod:`~spades_env.web.server` (the Starlette app and the command line).
"""
