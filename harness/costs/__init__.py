"""Scoring cost per submission (`cbench cost`): a fixed workload timed on this machine.

``record.py``: the cost file (one JSON per submission under ``leaderboard/cost/``) and reading a
folder of them; ``workload.py``: the fixed, declared workload (near-miss pairs, a BEIR collection's
queries); ``measure.py``: timing a built scorer on it; ``machine.py``: what the machine was doing.
"""
