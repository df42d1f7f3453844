"""Bilingual text values: every sentence the advisor says exists in Chinese and English."""

from __future__ import annotations

from dataclasses import dataclass

from bot.need import format_money


@dataclass(frozen=True)
class Text:
    en: str
    zh: str

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


def money(amount: float, currency: str) -> str:
    """An amount in any currency the advisor understands: '¥8,000', '$1,500', 'NT$30,000', '€2,000', 'JP¥150,000'."""
    return format_money(amount, currency)
