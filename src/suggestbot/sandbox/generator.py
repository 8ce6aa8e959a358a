"""Deterministic content generation from templates, in English and German.

No model and no network: the same inputs always give the same text. What matters for the app
and its tests is that variants differ visibly and that a refinement visibly follows its
instruction ("shorter" is shorter, a quoted or mentioned word appears, "more formal" changes the
greeting, "add a call to action" adds one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

EMAIL = "email"
SOCIAL = "social_single_image"
UNKNOWN_KIND = "video_story"

_EMAIL_WORDS = ("e-mail", "email", "newsletter", "mailing", "mail")
_SOCIAL_WORDS = (
    "social",
    "instagram",
    "facebook",
    "linkedin",
    "post",
    "image",
    "photo",
    "picture",
    "bild",
    "foto",
    "beitrag",
)


@dataclass(frozen=True)
class Context:
    """Everything a template may draw on besides the brief and instruction."""

    locale: str
    tenant_name: str
    segment_name: str
    segment_description: str
    use_case_name: str


@dataclass
class Generated:
    """Text parts of one suggestion; the caller attaches the image reference."""

    kind: str
    payload: dict[str, Any]
    rationale: str
    alt_text: str | None = None
    changes: list[str] = field(default_factory=list)


_TEXT: dict[str, dict[str, Any]] = {
    "en": {
        "openers": [
            "Good news for {segment}: {use_case} is here.",
            "Picture this: a new season, and {use_case} made for {segment}.",
            "Do not wait too long, {segment}: {use_case} starts now.",
            "Ready for something new, {segment}? Meet {use_case}.",
        ],
        "subjects": [
            "{use_case}: made for {segment}",
            "A story for {segment}: {use_case}",
            "Last chance: {use_case}",
            "{segment}, are you ready for {use_case}?",
        ],
        "angles": ["benefit", "story", "urgency", "question"],
        "greeting": "Hi {segment},",
        "formal_greeting": "Dear {segment},",
        "casual_greeting": "Hey {segment}!",
        "focus": "Our focus: {topic}.",
        "audience": "Made for people who are {description}.",
        "edition": "Edition {version} of our picks.",
        "signoff": "Your {tenant} team",
        "formal_signoff": "Kind regards,\nThe {tenant} team",
        "cta": "Shop now and be the first to try it.",
        "mention": "Also part of it: {word}.",
        "longer": "Every detail was chosen with {segment} in mind, from the first idea to the "
        "last stitch.",
        "revised": "Revised: {instruction}.",
        "rationale": "Suggested because {segment} respond well to the {angle} angle of {use_case}.",
        "refined_rationale": "Refined as asked: {instruction}",
        "alt": "Colour-block illustration for {use_case}, aimed at {segment} (variant {n}).",
        "alt_new": "New colour-block illustration for {use_case}, aimed at {segment}.",
        "hashtag": "#{tag}",
        "thread": "{use_case} for {segment}",
        "video": "A 15-second story for {segment} about {use_case}.",
    },
    "de": {
        "openers": [
            "Gute Nachrichten für {segment}: {use_case} ist da.",
            "Stellen Sie sich vor: eine neue Saison und {use_case} für {segment}.",
            "Nicht zu lange warten, {segment}: {use_case} beginnt jetzt.",
            "Bereit für etwas Neues, {segment}? Das ist {use_case}.",
        ],
        "subjects": [
            "{use_case}: gemacht für {segment}",
            "Eine Geschichte für {segment}: {use_case}",
            "Letzte Gelegenheit: {use_case}",
            "{segment}, bereit für {use_case}?",
        ],
        "angles": ["Nutzen", "Geschichte", "Dringlichkeit", "Frage"],
        "greeting": "Hallo {segment},",
        "formal_greeting": "Sehr geehrte Damen und Herren,",
        "casual_greeting": "Hey {segment}!",
        "focus": "Im Mittelpunkt: {topic}.",
        "audience": "Gemacht für alle, die {description} sind.",
        "edition": "Ausgabe {version} unserer Empfehlungen.",
        "signoff": "Ihr {tenant} Team",
        "formal_signoff": "Mit freundlichen Grüßen\nIhr {tenant} Team",
        "cta": "Jetzt entdecken und als Erste dabei sein.",
        "mention": "Ebenfalls dabei: {word}.",
        "longer": "Jedes Detail wurde mit Blick auf {segment} ausgewählt, von der ersten Idee "
        "bis zur letzten Naht.",
        "revised": "Überarbeitet: {instruction}.",
        "rationale": "Vorgeschlagen, weil {segment} gut auf den Ansatz „{angle}“ bei "
        "{use_case} ansprechen.",
        "refined_rationale": "Wie gewünscht überarbeitet: {instruction}",
        "alt": "Farbflächen-Illustration zu {use_case} für {segment} (Variante {n}).",
        "alt_new": "Neue Farbflächen-Illustration zu {use_case} für {segment}.",
        "hashtag": "#{tag}",
        "thread": "{use_case} für {segment}",
        "video": "Eine 15-Sekunden-Geschichte für {segment} über {use_case}.",
    },
}

_SHORTER = ("shorter", "short", "concise", "brief", "trim", "kürzer", "kurz", "knapper")
_LONGER = ("longer", "more detail", "expand", "länger", "ausführlicher")
_FORMAL = ("formal", "förmlich", "formeller", "seriös")
_CASUAL = ("casual", "informal", "friendlier", "locker", "freundlicher")
_CTA = ("call to action", "call-to-action", "cta", "handlungsaufforderung", "aufruf")
_QUOTED = re.compile(r"\"([^\"]+)\"|'([^']+)'|„([^“”]+)[“”]|“([^”]+)”|«([^»]+)»")
_MENTION = re.compile(
    r"\b(?:mention|include|add the word|name|erwähne|erwähnen|nenne|nennen)\s+([^.,;!?\"'„“”]+)",
    re.IGNORECASE,
)


def _texts(locale: str) -> dict[str, Any]:
    return _TEXT.get(locale, _TEXT["en"])


def _fields(ctx: Context) -> dict[str, str]:
    description = ctx.segment_description.strip().rstrip(".")
    return {
        "segment": ctx.segment_name,
        "use_case": ctx.use_case_name,
        "tenant": ctx.tenant_name,
        "description": description[:1].lower() + description[1:],
    }


def _has_word(text: str, words: tuple[str, ...]) -> bool:
    lowered = text.casefold()
    return any(re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", lowered) for word in words)


def choose_kind(*, brief: str, use_case_name: str) -> str:
    """Kind of a steered set: named in the brief, else implied by the use case, else email."""
    if _has_word(brief, _EMAIL_WORDS):
        return EMAIL
    if _has_word(brief, _SOCIAL_WORDS) or _has_word(use_case_name, _SOCIAL_WORDS):
        return SOCIAL
    return EMAIL


def precompute_kind(variant_no: int) -> str:
    """Ready-made sets mix kinds: odd variants are emails, even ones social posts."""
    return EMAIL if variant_no % 2 else SOCIAL


def _topic(brief: str) -> str:
    text = " ".join(brief.split())
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0].rstrip(".!?")
    if len(first) > 80:
        first = first[:80].rsplit(" ", 1)[0]
    return first


def _hashtag(ctx: Context) -> str:
    return "".join(part.capitalize() for part in re.findall(r"\w+", ctx.use_case_name))


def generate(
    ctx: Context, *, kind: str, variant_no: int, brief: str | None, version: int | None
) -> Generated:
    """One variant of a set (steered when ``brief`` is given, ready-made otherwise)."""
    texts = _texts(ctx.locale)
    values = _fields(ctx)
    index = (variant_no - 1) % len(texts["openers"])
    opener = texts["openers"][index].format(**values)
    lines = [opener]
    if brief:
        lines.append(texts["focus"].format(topic=_topic(brief)))
    if values["description"]:
        lines.append(texts["audience"].format(**values))
    if version is not None:
        lines.append(texts["edition"].format(version=version))
    rationale = texts["rationale"].format(angle=texts["angles"][index], **values)
    alt = texts["alt"].format(n=variant_no, **values)
    if kind == EMAIL:
        body = "\n\n".join(
            [
                texts["greeting"].format(**values),
                "\n".join(lines),
                texts["signoff"].format(**values),
            ]
        )
        subject = texts["subjects"][index].format(**values)
        return Generated(kind, {"subject": subject, "body": body}, rationale)
    if kind == SOCIAL:
        tag = texts["hashtag"].format(tag=_hashtag(ctx))
        return Generated(kind, {"body": " ".join([*lines, tag])}, rationale, alt_text=alt)
    body = texts["video"].format(**values)
    return Generated(kind, {"body": body, "duration_s": 15}, rationale)


def lengthened(made: Generated, *, chars: int) -> Generated:
    """``made`` with its body grown (or cut) to exactly ``chars`` characters, in paragraphs."""
    body = str(made.payload.get("body", ""))
    filler = "\n\n" + " ".join(["More detail on the offer follows here."] * 12)
    while len(body) < chars:
        body += filler
    return Generated(
        made.kind,
        {**made.payload, "body": body[:chars]},
        made.rationale,
        alt_text=made.alt_text,
        changes=list(made.changes),
    )


def _requested_words(instruction: str) -> list[str]:
    words = [next(g for g in match.groups() if g) for match in _QUOTED.finditer(instruction)]
    if not words:
        words = [m.group(1).strip() for m in _MENTION.finditer(instruction)]
    return [w.strip() for w in words if w.strip()]


def _shorten(text: str) -> str:
    """Roughly half of ``text`` by lines, then by words; always strictly shorter."""
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) > 2:
        keep = max(2, (len(lines) + 1) // 2)
        shorter = "\n".join([*lines[: keep - 1], lines[-1]])
    else:
        words = text.split(" ")
        shorter = " ".join(words[: max(1, len(words) // 2)]).rstrip(",;:") + "…"
    if len(shorter) >= len(text):
        shorter = text[: max(1, len(text) // 2)].rstrip() + "…"
    return shorter


def refine(ctx: Context, *, kind: str, payload: dict[str, Any], instruction: str) -> Generated:
    """A new version of ``payload`` that visibly follows ``instruction``."""
    texts = _texts(ctx.locale)
    values = _fields(ctx)
    body = str(payload.get("body", ""))
    changes: list[str] = []
    if _has_word(instruction, _SHORTER):
        body = _shorten(body)
        changes.append("shorter")
    if _has_word(instruction, _LONGER):
        body = body + "\n" + texts["longer"].format(**values)
        changes.append("longer")
    if _has_word(instruction, _FORMAL):
        body = _swap_tone(body, texts, values, formal=True)
        changes.append("formal")
    elif _has_word(instruction, _CASUAL):
        body = _swap_tone(body, texts, values, formal=False)
        changes.append("casual")
    for word in _requested_words(instruction):
        if word.casefold() not in body.casefold():
            body = body + "\n" + texts["mention"].format(word=word)
        changes.append(f"mention:{word}")
    if _has_word(instruction, _CTA):
        body = body + "\n" + texts["cta"]
        changes.append("cta")
    if not changes:
        body = body + "\n" + texts["revised"].format(instruction=_topic(instruction))
        changes.append("revised")
    new_payload = dict(payload)
    new_payload["body"] = body
    new_payload.pop("asset", None)
    rationale = texts["refined_rationale"].format(instruction=_topic(instruction))
    alt = texts["alt_new"].format(**values) if kind == SOCIAL else None
    return Generated(kind, new_payload, rationale, alt_text=alt, changes=changes)


def _swap_tone(body: str, texts: dict[str, Any], values: dict[str, str], *, formal: bool) -> str:
    greetings = [texts[key].format(**values) for key in ("greeting", "formal_greeting")]
    greetings.append(texts["casual_greeting"].format(**values))
    target = texts["formal_greeting" if formal else "casual_greeting"].format(**values)
    lines = body.split("\n")
    if lines and lines[0] in greetings:
        lines[0] = target
    else:
        lines.insert(0, target)
    signoff = texts["signoff"].format(**values)
    formal_signoff = texts["formal_signoff"].format(**values)
    text = "\n".join(lines)
    if formal:
        text = text.replace("!", ".")
        if signoff in text:
            text = text.replace(signoff, formal_signoff)
    return text


def thread_name(ctx: Context) -> str:
    """A generated thread name within the contract's limits (60 characters, 8 words)."""
    name = _texts(ctx.locale)["thread"].format(**_fields(ctx))
    words = name.split()[:8]
    name = " ".join(words)
    return name if len(name) <= 60 else name[:60].rstrip()
