"""Small networks over the query x candidate token-cosine map (the "similarity map") and their
training. The submission kind ``verifier`` (``harness/scorers/verifier.py``) scores pairs with them;
``cbench train-verifier`` trains them.

- ``tokens``: token-level embeddings from an encoder;
- ``simmap``: the cosine map of two texts' tokens and batched scoring;
- ``archs``: the networks (parameter-free F0-F2, trainable CNN / transformer);
- ``train``: training with the MNRL loss, checkpoints.
"""
