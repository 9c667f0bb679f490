"""The ledger of every call that left the machine: when, why, model, tokens, estimated cost."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from companion import clock
from companion.vault import Vault
from companion.vault.models import OutboundCall


@dataclass
class Call:
    id: int
    created_at: datetime
    purpose: str
    status: str
    model: str
    input_tokens: int
    output_tokens: int
    cost_usd: float
    error: str = ""


# A call cut short by lock or quit returns no usage; its tokens are our estimate.
CANCELLED = "cancelled (tokens estimated)"


def record(
    vault: Vault,
    purpose: str,
    model: str,
    input_tokens: int,
    output_tokens: int,
    cost_usd: float,
    error: str = "",
) -> int:
    """``error`` is a short kind ("429 rate limited"), never a response body."""
    payload = {
        "model": model,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cost_usd": cost_usd,
        "error": error,
    }
    return vault.insert(
        OutboundCall,
        payload,
        created_at=clock.stamp(),
        purpose=purpose,
        status="error" if error else "ok",
    )


def calls(vault: Vault, limit: int = 200) -> list[Call]:
    rows = OutboundCall.select().order_by(OutboundCall.id.desc()).limit(limit)
    result = []
    for row in rows:
        data = vault.open(row)
        result.append(
            Call(
                row.id,
                clock.parse_stamp(row.created_at),
                row.purpose,
                row.status,
                str(data.get("model", "")),
                int(data.get("input_tokens", 0)),
                int(data.get("output_tokens", 0)),
                float(data.get("cost_usd", 0.0)),
                str(data.get("error", "")),
            )
        )
    return result
