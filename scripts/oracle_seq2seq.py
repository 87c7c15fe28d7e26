#!/usr/bin/env python3
"""The DeepSpeed oracle's recorder (../shared/deepspeed-oracle/trace_comm.py) for an
encoder-decoder: the same run, with the model built as its seq2seq LM (T5ForConditionalGeneration)
where trace_comm.py builds a causal LM. The step feeds input_ids and labels alike, so the decoder
runs over as many tokens as the encoder (its input the labels shifted right).

Usage (the oracle's venv, its environment as run_matrix.sh sets it):
  ORACLE_DIR=../shared/deepspeed-oracle python scripts/oracle_seq2seq.py <trace_comm.py arguments>
"""
import os
import sys

sys.path.insert(0, os.environ.get("ORACLE_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                             "shared", "deepspeed-oracle")))
import trace_comm  # noqa: E402


def resolve_model_class(model_spec):
    """As trace_comm's, for the seq2seq mapping (imports done before deepspeed.zero.Init)."""
    import torch._dynamo  # noqa: F401
    from transformers import AutoModelForSeq2SeqLM  # noqa: F401
    from transformers.models.auto.modeling_auto import MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING
    cfg = trace_comm.build_hf_config(model_spec)
    return MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING[type(cfg)], cfg


def build_model(model_spec, resolved=None):
    from transformers import AutoModelForSeq2SeqLM
    _, cfg = resolved or resolve_model_class(model_spec)
    return AutoModelForSeq2SeqLM.from_config(cfg), cfg


# Module attributes: the spawned workers import this file first (it is their __main__), so they
# see the same replacements.
trace_comm.resolve_model_class = resolve_model_class
trace_comm.build_model = build_model

if __name__ == "__main__":
    trace_comm.main()
