"""Bilingual text values: every sentence the advisor says exists in Chinese and English."""

from __future__ import annotations

from dataclasses import dataclass

from bot.need import CURRENCY_SYMBOLS, format_money


@dataclass(frozen=True)
class Text:
    en: str
    zh: str

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


def money(amount: float, currency: str) -> str:
    """An amount in any currency the advisor understands: '¥8,000', '$1,500', 'NT$30,000', '€2,000', 'JP¥150,000'."""
    return format_money(amount, currency)


def hourly(amount: float, currency: str, high: float | None = None) -> str:
    """A rental price: '$0.34', '¥2.00–3.00', 'NT$10.50'."""
    top = f"–{high:,.2f}" if high else ""
    return f"{CURRENCY_SYMBOLS.get(currency, currency + ' ')}{amount:,.2f}{top}"
