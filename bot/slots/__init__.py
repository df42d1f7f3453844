"""Slot extractors: each reads one slot from a normalised message, `text -> (value, spans)`.

`bot.nlu.parse` runs them in order, masking what one has taken so the next does not read it again."""
