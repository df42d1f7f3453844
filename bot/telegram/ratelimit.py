"""Messages per user per minute: over the limit a user is told once to wait, then ignored until the window moves."""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field

WINDOW = 60.0  # seconds
FORGET_AFTER = 10_000  # users tracked before the idle ones are forgotten


@dataclass
class RateLimiter:
    """A sliding one-minute window per user; `per_minute` 0 = no limit."""

    per_minute: int
    _hits: dict[int, deque] = field(default_factory=dict, repr=False)
    _warned: dict[int, float] = field(default_factory=dict, repr=False)

    def allow(self, user_id: int | None) -> tuple[bool, int | None]:
        """(allowed, seconds to wait — only the first time a user hits the limit in a window, else None)."""
        if not self.per_minute or user_id is None:
            return True, None
        now = time.monotonic()
        hits = self._hits.setdefault(user_id, deque())
        while hits and now - hits[0] >= WINDOW:
            hits.popleft()
        if len(hits) < self.per_minute:
            hits.append(now)
            if len(self._hits) > FORGET_AFTER:
                self._forget_idle(now)
            return True, None
        wait = max(1, math.ceil(WINDOW - (now - hits[0])))
        if now - self._warned.get(user_id, -1e9) >= WINDOW:
            self._warned[user_id] = now
            return False, wait
        return False, None

    def _forget_idle(self, now: float) -> None:
        for uid in [u for u, h in self._hits.items() if not h or now - h[-1] >= WINDOW]:
            self._hits.pop(uid, None)
            self._warned.pop(uid, None)
