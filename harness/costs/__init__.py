"""Scoring cost per submission (`cbench cost`): a fixed workload timed on this machine.

``record.py``: the cost file (one JSON per submission under ``leaderboard/cost/``) and reading a
folder of them; ``workload.py``: the fixed, declared workload (near-miss pairs, a BEIR collection's
queries); ``measure.py``: building a scorer's index (``Scorer.index_documents``) and timing pairs, the
index and queries against it; ``machine.py``: what the machine was doing.
"""
