#!/usr/bin/env python3
"""What transformers itself builds for each config.json in models/hf_configs/: every parameter
tensor the model registers, in registration order (named_parameters, a tied tensor listed once),
with its shape, and the total. The model is instantiated on the meta device, so no weights are
allocated. tests/models/transformers_params_test.cc checks zerosim's parameter list against it.

Usage (in a venv with torch and transformers, e.g. the DeepSpeed oracle's):
  python scripts/transformers_params.py > tests/models/data/transformers_params.json
"""
import glob
import json
import os
import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM


def params_of(path):
    config = AutoConfig.from_pretrained(path)
    # An encoder's config names the head it is trained with (BertForMaskedLM,
    # RobertaForMaskedLM, DebertaV2ForSequenceClassification); an
    # encoder-decoder is its conditional-generation model; a decoder is built as the causal LM
    # zerosim models whatever its architectures say.
    cls = AutoModelForCausalLM
    if config.model_type in ("bert", "roberta", "deberta-v2"):
        default = {"bert": "BertForMaskedLM", "roberta": "RobertaForMaskedLM",
                   "deberta-v2": "DebertaV2ForSequenceClassification"}[config.model_type]
        cls = getattr(transformers, (config.architectures or [default])[0])
    if config.is_encoder_decoder:  # the seq2seq LM
        cls = transformers.AutoModelForSeq2SeqLM
    with torch.device("meta"):
        model = cls.from_config(config) if hasattr(cls, "from_config") else cls._from_config(config)
    tensors = [[name, list(p.shape)] for name, p in model.named_parameters()]
    total = sum(p.numel() for p in model.parameters())
    return {"model_type": config.model_type, "params": total, "tensors": tensors}


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = {
        "generated_by": "scripts/transformers_params.py",
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "configs": {},
    }
    for path in sorted(glob.glob(os.path.join(root, "models", "hf_configs", "*.json"))):
        out["configs"][os.path.basename(path)] = params_of(path)
    # One tensor per line: a diff of the file reads as a diff of the models.
    lines = ["{"]
    for key in ("generated_by", "transformers", "torch"):
        lines.append(f" {json.dumps(key)}: {json.dumps(out[key])},")
    lines.append(' "configs": {')
    names = list(out["configs"])
    for i, name in enumerate(names):
        c = out["configs"][name]
        lines.append(f"  {json.dumps(name)}: {{")
        lines.append(f'   "model_type": {json.dumps(c["model_type"])},')
        lines.append(f'   "params": {c["params"]},')
        lines.append('   "tensors": [')
        for k, t in enumerate(c["tensors"]):
            lines.append(f"    {json.dumps(t)}" + ("," if k + 1 < len(c["tensors"]) else ""))
        lines.append("   ]")
        lines.append("  }" + ("," if i + 1 < len(names) else ""))
    lines.append(" }")
    lines.append("}")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
