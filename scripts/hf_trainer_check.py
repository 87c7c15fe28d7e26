#!/usr/bin/env python3
"""hf_trainer_check.py - trains with a tuned config exactly as zerosim tells a user to: the HF
Trainer launched with the flags zerosim printed (results.json "trainer_args") and
best_ds_config.json as --deepspeed, so HfTrainerDeepSpeedConfig fills its "auto" and checks its
numbers against TrainingArguments, and deepspeed.initialize builds the engine. Runs on the CPU
(DS_ACCELERATOR=cpu, gloo) under torch.distributed.run, one process per rank.

Checks, on rank 0, printed one line each and exiting 1 on the first that fails:
  1. zerosim said the file is ready (best_config_needs is empty);
  2. training starts and runs --steps optimizer steps with a finite loss;
  3. what DeepSpeed received is what zerosim predicted for: the micro-batch, accumulation,
     train_batch_size, ZeRO stage and precision of the winning row, and reduce_bucket_size (the
     row's when the sweep varied it, else the Trainer's hidden_size^2);
  4. the control: the same file with the micro-batch written as the number zerosim tuned (what
     zerosim wrote before) and launched without --per_device_train_batch_size stops with the
     Trainer's TrainingArguments mismatch, so check 2 can fail.

Usage (scripts/check_tuned_config_hf.sh runs it):
  python -m torch.distributed.run --nproc_per_node N hf_trainer_check.py SWEEP_DIR MODEL_JSON OUT_DIR
"""
import json
import math
import os
import sys


def say(rank, line):
    if rank == 0:
        print(line, flush=True)


def fail(rank, line):
    say(rank, "FAIL: " + line)
    sys.exit(1)


def main():
    sweep_dir, model_json, out_dir = sys.argv[1:4]
    steps = 2
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    os.environ.setdefault("LOCAL_SIZE", str(world))  # the CPU accelerator's device count
    results = json.load(open(os.path.join(sweep_dir, "results.json")))
    best_path = os.path.join(sweep_dir, "best_ds_config.json")
    best = json.load(open(best_path))
    args_words = results["trainer_args"]
    needs = results["best_config_needs"]
    say(rank, f"zerosim's flags: {' '.join(args_words)}")
    if needs:
        fail(rank, "zerosim says the file is not ready: " + "; ".join(needs))
    say(rank, "check 1: zerosim says best_ds_config.json is ready with those flags")
    if results["base"]["world_size"] != world:
        fail(rank, f"the sweep's world size {results['base']['world_size']} is not this run's {world}")

    import torch
    import deepspeed
    deepspeed.init_distributed(dist_backend="gloo")
    from transformers import AutoConfig, AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    common = ["--output_dir", out_dir, "--max_steps", str(steps), "--use_cpu", "--report_to", "none",
              "--save_strategy", "no", "--logging_steps", "1", "--disable_tqdm", "true",
              "--dataloader_drop_last", "true"]
    (args,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses(
        args=common + args_words + ["--deepspeed", best_path])

    spec = json.load(open(model_json))
    config = AutoConfig.for_model(spec.pop("model_type"), **spec)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config)
    seq = results["base"]["seq_len"]

    class Tokens(torch.utils.data.Dataset):
        def __len__(self):
            return 4096

        def __getitem__(self, i):
            g = torch.Generator().manual_seed(i)
            x = torch.randint(0, config.vocab_size, (seq,), generator=g)
            return {"input_ids": x, "labels": x}

    trainer = Trainer(model=model, args=args, train_dataset=Tokens())
    out = trainer.train()
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    if trainer.state.global_step != steps or not losses or not all(math.isfinite(float(l)) for l in losses):
        fail(rank, f"training did not run {steps} finite steps: global_step {trainer.state.global_step}, losses {losses}")
    say(rank, f"check 2: the HF Trainer trained {steps} steps with it (losses {', '.join(f'{float(l):.4f}' for l in losses)}, "
              f"{out.metrics['train_runtime']:.2f} s)")

    # What DeepSpeed received, against the winning row zerosim simulated.
    engine = trainer.model_wrapped
    ds = trainer.accelerator.state.deepspeed_plugin.hf_ds_config.config
    row = next(r for r in results["rows"] if r["id"] == results["best"])
    res = row["result"]
    seen = {
        "train_micro_batch_size_per_gpu": engine.train_micro_batch_size_per_gpu(),
        "gradient_accumulation_steps": engine.gradient_accumulation_steps(),
        "train_batch_size": engine.train_batch_size(),
        "zero_optimization.stage": engine.zero_optimization_stage(),
        "zero_optimization.reduce_bucket_size": ds["zero_optimization"].get("reduce_bucket_size"),
        "bf16": bool(engine.bfloat16_enabled()),
        "fp16": bool(engine.fp16_enabled()),
    }
    batch = res["batch"]
    predicted = {
        "train_micro_batch_size_per_gpu": batch["micro_batch_per_gpu"],
        "gradient_accumulation_steps": batch["gradient_accumulation_steps"],
        "train_batch_size": batch["train_batch_size"],
        "zero_optimization.stage": res["zero_stage"],
        "bf16": res["precision"] == "bf16",
        "fp16": res["precision"] == "fp16",
    }
    # A bucket size the sweep varied is the row's value; otherwise the Trainer's hidden_size^2.
    predicted["zero_optimization.reduce_bucket_size"] = row["values"].get(
        "zero_optimization.reduce_bucket_size", config.hidden_size ** 2)
    for k in predicted:
        if seen[k] != predicted[k]:
            fail(rank, f"DeepSpeed received {k} = {seen[k]}, zerosim predicted for {predicted[k]}")
    say(rank, "check 3: DeepSpeed received what zerosim predicted for: " +
        ", ".join(f"{k} {v}" for k, v in seen.items()))

    # The control: a number where the Trainer fills "auto", without the flag it must match.
    control = json.loads(json.dumps(best))
    control["train_micro_batch_size_per_gpu"] = batch["micro_batch_per_gpu"]
    words = [w for i, w in enumerate(args_words)
             if w != "--per_device_train_batch_size" and (i == 0 or args_words[i - 1] != "--per_device_train_batch_size")]
    (cargs,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses(args=common + words)
    if cargs.per_device_train_batch_size == batch["micro_batch_per_gpu"]:
        say(rank, "check 4: skipped (the Trainer's default per_device_train_batch_size equals the tuned micro-batch)")
        return
    hf = HfTrainerDeepSpeedConfig(control)
    hf.trainer_config_process(cargs)
    try:
        hf.trainer_config_finalize(cargs, model, steps)
    except ValueError as e:
        say(rank, "check 4: the control (a number, no flag) stops as the Trainer does: " + str(e).splitlines()[1])
        return
    fail(rank, "the control did not stop: a check that cannot fail")


if __name__ == "__main__":
    main()
