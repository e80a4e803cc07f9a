"""Fused rerankers (``kind: fusion``): fitting their constants on development queries
(``fit``, ``cbench fuse``) and their test curves over the weight grid (``curves``)."""
