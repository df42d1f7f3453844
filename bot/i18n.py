"""Bilingual text values: every sentence the advisor says exists in Chinese and English."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    en: str
    zh: str

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


def money(amount: float, currency: str) -> str:
    return f"{'¥' if currency == 'CNY' else '$'}{amount:,.0f}"
