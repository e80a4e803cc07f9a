"""Fine-tuning sentence-transformers encoders (`cbench finetune`): data, evaluator, trainer, recipes.

Heavy imports (torch, sentence-transformers) happen inside the submodules that need them."""
