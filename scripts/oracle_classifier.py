#!/usr/bin/env python3
"""The DeepSpeed oracle's recorder (../shared/deepspeed-oracle/trace_comm.py) for a sequence
classifier (DebertaV2ForSequenceClassification): the same run, with the model built as the
*ForSequenceClassification class of its config where trace_comm.py builds a causal LM. The step
feeds input_ids as labels; the model's forward takes each sequence's first id modulo num_labels
as its class (one label per sequence, what the classification loss reads).

Usage (the oracle's venv, its environment as run_matrix.sh sets it):
  ORACLE_DIR=../shared/deepspeed-oracle python scripts/oracle_classifier.py <trace_comm.py arguments>
"""
import os
import sys

sys.path.insert(0, os.environ.get("ORACLE_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                             "shared", "deepspeed-oracle")))
import trace_comm  # noqa: E402


def resolve_model_class(model_spec):
    """As trace_comm's, for the classification mapping (imports done before deepspeed.zero.Init)."""
    import torch._dynamo  # noqa: F401
    from transformers import AutoModelForSequenceClassification  # noqa: F401
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING)
    cfg = trace_comm.build_hf_config(model_spec)
    return MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING[type(cfg)], cfg


def build_model(model_spec, resolved=None):
    from transformers import AutoModelForSequenceClassification
    _, cfg = resolved or resolve_model_class(model_spec)
    model = AutoModelForSequenceClassification.from_config(cfg)
    forward = model.forward
    num_labels = cfg.num_labels

    def classify(input_ids=None, labels=None, **kwargs):
        if labels is not None and labels.dim() == 2:
            labels = labels[:, 0] % num_labels
        return forward(input_ids=input_ids, labels=labels, **kwargs)

    model.forward = classify
    return model, cfg


# Module attributes: the spawned workers import this file first (it is their __main__), so they
# see the same replacements.
trace_comm.resolve_model_class = resolve_model_class
trace_comm.build_model = build_model

if __name__ == "__main__":
    trace_comm.main()
