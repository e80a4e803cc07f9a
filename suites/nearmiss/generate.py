"""Deterministic generator of compositional near-miss triplets (suite ``nearmiss``).

Each record is ``{"id", "category", "split", "anchor", "positive", "negative"}``:

* ``positive`` -- a meaning-preserving rewrite of the anchor (passive/active voice,
  converse relation, clause or coordination reorder, vetted synonyms);
* ``negative`` -- a near-miss: a minimal edit of the anchor that changes its meaning.

Frames (sentence templates written as small functions) are split-specific: the
``test`` and ``train`` splits use different frames, and every slot filler is
drawn from the split's own half of the lexicon (see ``lexicon.pool``).

Only ``random.Random`` seeded from the integer seed is used; no iteration over
sets or hash-ordered containers influences the output, so the result does not
depend on ``PYTHONHASHSEED``.

CLI::

    python -m suites.nearmiss.generate --out suites/nearmiss/nearmiss-v1.jsonl [--seed 13]
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Callable
from pathlib import Path

from suites.nearmiss.lexicon import article, pool, tokens

VERSION = "1"
CATEGORIES = (
    "negation",
    "role_swap",
    "attribute_binding",
    "spatial",
    "quantity",
    "comparative",
    "temporal_order",
)
SPLITS = ("test", "train")
COUNTS = {"test": 300, "train": 600}
DEFAULT_SEED = 13
KEYS = ("id", "category", "split", "anchor", "positive", "negative")

MIN_WORDS, MAX_WORDS = 6, 30


# ---------------------------------------------------------------------------
# frame machinery
# ---------------------------------------------------------------------------


class Ctx:
    """Sampling context handed to frames: a seeded RNG plus the split's lexicon."""

    def __init__(self, rng: random.Random, split: str):
        self.r = rng
        self.split = split

    def pick(self, pool_name: str, k: int | None = None):
        items = pool(pool_name, self.split)
        if k is None:
            return self.r.choice(items)
        return self.r.sample(items, k)

    def ch(self, seq):
        return self.r.choice(seq)

    def sample(self, seq, k: int):
        return self.r.sample(list(seq), k)

    def coin(self, p: float = 0.5) -> bool:
        return self.r.random() < p


Frame = Callable[[Ctx], tuple[str, list[str], str]]
FRAMES: dict[tuple[str, str], list[Frame]] = {}


def frame(category: str, split: str):
    def deco(fn: Frame) -> Frame:
        FRAMES.setdefault((category, split), []).append(fn)
        return fn

    return deco


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def finish(s: str) -> str:
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r"\s+([,.;:])", r"\1", s)
    s = cap(s)
    if not s.endswith((".", "!", "?")):
        s += "."
    return s


def A(adj: str, noun: str) -> str:
    """'a'/'an' + adjective + noun."""
    return f"{article(adj)} {adj} {noun}"


def be(plural: bool, past: bool = False) -> str:
    if past:
        return "were" if plural else "was"
    return "are" if plural else "is"


# ---------------------------------------------------------------------------
# shared operator vocab (not slot fillers)
# ---------------------------------------------------------------------------

LR = ("to the left of", "to the right of")
AB = ("above", "below")
FB = ("in front of", "behind")
NS = ("north of", "south of")
EW = ("east of", "west of")
OU = ("over", "under")
SPATIAL_CONVERSE = {LR[0]: LR[1], LR[1]: LR[0], AB[0]: AB[1], AB[1]: AB[0],
                    FB[0]: FB[1], FB[1]: FB[0], NS[0]: NS[1], NS[1]: NS[0],
                    EW[0]: EW[1], EW[1]: EW[0], OU[0]: OU[1], OU[1]: OU[0]}


def rel_pair(c: Ctx, pairs):
    a, b = c.ch(pairs)
    return (a, b) if c.coin() else (b, a)


NUMS_SMALL = ("two", "three", "four", "five", "six")
NUMS_MID = ("two", "three", "four", "five", "six", "eight", "ten", "twelve")


def other(c: Ctx, seq, cur):
    return c.ch([x for x in seq if x != cur])


# ===========================================================================
# NEGATION
# ===========================================================================
# Allowed edits (see tests): insert/delete "not" or "never"; a/an/some/any <-> "no";
# V-s / V-ed <-> does/did not V.


def _neg(c: Ctx, aff: str, negd: str, pos_aff: list[str], pos_neg: list[str]):
    if c.coin():
        return aff, pos_aff, negd
    return negd, pos_neg, aff


@frame("negation", "test")
def neg_infra(c: Ctx):
    s = c.pick("structures_infra")
    pred = c.ch(["safe for heavy trucks", "open to cyclists", "strong enough for the new trains",
                 "ready for inspection", "wide enough for two lanes of traffic",
                 "safe to use during storms", "accessible to wheelchair users"])
    if c.coin():
        cop, when = "is", c.ch(["at the moment", "according to the engineers", "after the recent repairs",
                                "in its current state", "during the winter months"])
    else:
        cop, when = "was", c.ch(["last year", "before the renovation", "according to the inspection report",
                                 "at the time of the survey", "when it first opened"])
    aff = f"The {s.sg} {cop} {pred} {when}."
    negd = f"The {s.sg} {cop} not {pred} {when}."
    return _neg(c, aff, negd,
                [f"{cap(when)}, the {s.sg} {cop} {pred}."],
                [f"{cap(when)}, the {s.sg} {cop} not {pred}."])


@frame("negation", "test")
def neg_approve(c: Ctx):
    who = c.pick("office_roles")
    doc = c.pick("documents")
    # avoid "the auditor audited ..."
    v = c.ch([x for x in pool("approve_verbs", c.split) if not who.sg.startswith(x.base[:5])])
    when = c.ch(["on Friday", "last month", "before the deadline", "yesterday", "this morning",
                 "in March", "after a long discussion", "at the weekly review",
                 "before the end of the financial year despite repeated reminders from the finance team",
                 "during the finance meeting that was held on the last Friday of the month"])
    aff = f"The {who.sg} {v.past} the {doc.sg} {when}."
    negd = f"The {who.sg} did not {v.base} the {doc.sg} {when}."
    return _neg(c, aff, negd,
                [f"The {doc.sg} was {v.pp} by the {who.syn.sg} {when}.",
                 f"{cap(when)}, the {doc.sg} was {v.pp} by the {who.sg}."],
                [f"The {doc.sg} was not {v.pp} by the {who.syn.sg} {when}.",
                 f"{cap(when)}, the {doc.sg} was not {v.pp} by the {who.sg}."])


@frame("negation", "test")
def neg_software(c: Ctx):
    sw = c.pick("software")
    bug = c.pick("bugs")
    v = c.pick("fix_verbs")
    tail = c.ch(["", " on Android", " that users reported last week", " in the export module",
                 " on older devices", " for enterprise customers",
                 " that several large enterprise clients reported to the support team last week",
                 " on older tablets that still run the previous version of the operating system"])
    aff = f"{sw.sg} {v.s} the {bug.sg} bug{tail}."
    negd = f"{sw.sg} does not {v.base} the {bug.sg} bug{tail}."
    return _neg(c, aff, negd,
                [f"The {bug.sg} bug{tail} is {v.pp} by {sw.sg}.",
                 f"The {bug.sg} bug{tail} is {v.syn.pp} by {sw.sg}."],
                [f"The {bug.sg} bug{tail} is not {v.pp} by {sw.sg}.",
                 f"The {bug.sg} bug{tail} is not {v.syn.pp} by {sw.sg}."])


@frame("negation", "test")
def neg_visited(c: Ctx):
    n = c.pick("names")
    city = c.pick("cities")
    if c.coin(0.65):
        tail = c.ch(["for work", "in the winter", "on a business trip", "as a student",
                     "during the summer holidays", "with friends"])
        aff = f"{n.sg} has visited {city.sg} {tail}."
        negd = f"{n.sg} has never visited {city.sg} {tail}."
        return _neg(c, aff, negd, [f"{n.sg} has been to {city.sg} {tail}."],
                    [f"{n.sg} has never been to {city.sg} {tail}."])
    year = c.ch(["2015", "2018", "2020", "the end of the decade", "the time she retired",
                 "the age of thirty"])
    aff = f"By {year}, {n.sg} had visited {city.sg}."
    negd = f"By {year}, {n.sg} had never visited {city.sg}."
    return _neg(c, aff, negd, [f"{n.sg} had been to {city.sg} by {year}."],
                [f"{n.sg} had never been to {city.sg} by {year}."])


@frame("negation", "test")
def neg_there_is(c: Ctx):
    am = c.pick("amenities")
    lm = c.pick("landmarks")
    prep = c.ch(["near", "next to", "opposite", "within walking distance of", "on the road to"])
    aff = f"There is {am.a} {prep} {lm.sg}."
    negd = f"There is no {am.sg} {prep} {lm.sg}."
    return _neg(c, aff, negd,
                [f"{cap(prep)} {lm.sg}, there is {am.syn.a}.",
                 f"{cap(am.syn.a)} can be found {prep} {lm.sg}."],
                [f"{cap(prep)} {lm.sg}, there is no {am.syn.sg}.",
                 f"No {am.syn.sg} can be found {prep} {lm.sg}."])


@frame("negation", "test")
def neg_allergy(c: Ctx):
    al = c.pick("allergens")
    subj = c.ch(["the patient", "the new patient", "the child", "the elderly patient",
                 "the patient in room four", "the donor"])
    tail = c.ch(["", " according to the chart", " according to the hospital records",
                 " as far as the staff know", " based on the latest tests",
                 " according to the records that were transferred from the previous clinic last spring"])
    aff = f"{subj} is allergic to {al.sg}{tail}."
    negd = f"{subj} is not allergic to {al.sg}{tail}."
    return _neg(c, aff, negd, [f"{subj} has an allergy to {al.sg}{tail}."],
                [f"{subj} does not have an allergy to {al.sg}{tail}."])


@frame("negation", "test")
def neg_fee(c: Ctx):
    bank = c.ch(["the bank", "my bank", "the credit union", "the online bank", "the building society",
                 "the new digital bank"])
    fee = c.pick("fees")
    v = c.pick("fee_verbs")
    obj = "a fee" if v.base in ("charge", "apply") else "the fee"
    aff = f"{bank} {v.s} {obj} for {fee.sg}."
    negd = f"{bank} does not {v.base} {obj} for {fee.sg}."
    return _neg(c, aff, negd,
                [f"For {fee.sg}, {obj} is {v.pp} by {bank}.", f"{cap(obj)} for {fee.sg} is {v.pp} by {bank}."],
                [f"For {fee.sg}, {obj} is not {v.pp} by {bank}.", f"{cap(obj)} for {fee.sg} is not {v.pp} by {bank}."])


# --- negation / train -------------------------------------------------------


@frame("negation", "train")
def neg_allowed(c: Ctx):
    proc = c.pick("schedules")
    act = c.ch(["eat solid food", "drive", "take a shower", "drink alcohol", "return to work",
                "lift heavy objects", "go swimming", "travel by plane"])
    when = c.ch([f"after the {proc.sg}", f"for two days after the {proc.sg}",
                 f"on the day of the {proc.sg}", f"in the week before the {proc.sg}"])
    who = c.ch(["patients", "outpatients", "most patients", "adult patients"])
    aff = f"{who} are allowed to {act} {when}."
    negd = f"{who} are not allowed to {act} {when}."
    return _neg(c, aff, negd,
                [f"{cap(when)}, {who} are allowed to {act}.", f"{cap(when)}, {who} are permitted to {act}."],
                [f"{cap(when)}, {who} are not allowed to {act}.", f"{cap(when)}, {who} are not permitted to {act}."])


@frame("negation", "train")
def neg_never_answered(c: Ctx):
    n = c.pick("names")
    role = c.pick("office_roles")
    x = c.ch(["email", "letter", "invitation", "message", "complaint", "questionnaire", "voicemail"])
    aff = f"{n.sg} answered the {x} from the {role.sg}."
    negd = f"{n.sg} never answered the {x} from the {role.sg}."
    return _neg(c, aff, negd, [f"The {x} from the {role.syn.sg} was answered by {n.sg}."],
                [f"The {x} from the {role.syn.sg} was never answered by {n.sg}."])


@frame("negation", "train")
def neg_will(c: Ctx):
    co = c.pick("companies")
    v, what = c.ch([("raise", "its prices"), ("cut", "its delivery fees"), ("freeze", "staff salaries"),
                    ("publish", "its growth targets"), ("pay", "the annual bonus"), ("review", "its dividend"),
                    ("close", "its regional offices"), ("expand", "its online store")])
    when = c.ch(["next year", "in the spring", "before the end of the quarter", "this summer",
                 "after the merger"])
    aff = f"{co.sg} will {v} {what} {when}."
    negd = f"{co.sg} will not {v} {what} {when}."
    return _neg(c, aff, negd, [f"{cap(when)}, {co.sg} will {v} {what}."],
                [f"{cap(when)}, {co.sg} will not {v} {what}."])


@frame("negation", "train")
def neg_contains_no(c: Ctx):
    doc = c.pick("documents")
    what = c.ch(["errors", "typos", "outdated figures", "personal data", "broken links",
                 "unsupported claims", "spelling mistakes"])
    tail = c.ch(["", " according to the reviewer", " as far as we can tell", " after the final edit"])
    aff = f"The {doc.sg} contains some {what}{tail}."
    negd = f"The {doc.sg} contains no {what}{tail}."
    return _neg(c, aff, negd, [f"There are some {what} in the {doc.sg}{tail}."],
                [f"There are no {what} in the {doc.sg}{tail}."])


@frame("negation", "train")
def neg_dish(c: Ctx):
    dish = c.pick("dishes")
    x = c.ch(["dairy", "gluten", "sesame", "soy", "mustard", "celery", "alcohol", "meat"])
    menu = c.ch(["lunch menu", "children's menu", "set menu", "dinner menu", "vegan menu", "weekend menu"])
    aff = f"The {dish.sg} on the {menu} contains {x}."
    negd = f"The {dish.sg} on the {menu} does not contain {x}."
    return _neg(c, aff, negd, [f"There is {x} in the {dish.sg} on the {menu}."],
                [f"There is no {x} in the {dish.sg} on the {menu}."])


@frame("negation", "train")
def neg_has_signed(c: Ctx):
    role = c.pick("legal_roles")
    doc = c.ch(["the settlement", "the plea agreement", "the witness statement",
                "the confidentiality agreement", "the court papers", "the consent form"])
    v = c.ch([("signed", "signed"), ("read", "read"), ("accepted", "accepted"), ("received", "received"),
              ("seen", "seen")])[0]
    tail = c.ch(["", " so far", " as of this morning", " according to the court clerk"])
    has = "have" if doc.endswith("s") else "has"
    aff = f"The {role.sg} has {v} {doc}{tail}."
    negd = f"The {role.sg} has not {v} {doc}{tail}."
    return _neg(c, aff, negd, [f"{cap(doc)} {has} been {v} by the {role.sg}{tail}."],
                [f"{cap(doc)} {has} not been {v} by the {role.sg}{tail}."])


@frame("negation", "train")
def neg_fit(c: Ctx):
    p = c.pick("players")
    match = c.ch(["Saturday's final", "the derby", "the away game", "tomorrow's match", "the cup replay",
                  "the season opener"])
    src = c.ch(["the physio", "the club doctor", "the head coach", "the medical staff"])
    aff = f"{src} said the {p.sg} is fit to play in {match}."
    negd = f"{src} said the {p.sg} is not fit to play in {match}."
    return _neg(c, aff, negd, [f"According to {src}, the {p.sg} is fit to play in {match}."],
                [f"According to {src}, the {p.sg} is not fit to play in {match}."])


@frame("negation", "train")
def neg_offers(c: Ctx):
    place = c.ch(["the campsite", "the guesthouse", "the resort", "our hotel", "the inn", "the manor hotel",
                  "the holiday camp", "the motel"])
    x, pl = c.ch([("free breakfast", False), ("airport transfers", True), ("free parking", False),
                  ("late check-out", False), ("room service", False), ("bike rental", False),
                  ("a shuttle to the beach", False), ("laundry facilities", True)])
    tail = c.ch(["", " to its guests", " in the summer", " on weekends", " during the off-season",
                 " to guests who book directly through its own website rather than through an agency"])
    aff = f"{place} offers {x}{tail}."
    negd = f"{place} does not offer {x}{tail}."
    return _neg(c, aff, negd,
                [f"{cap(x)} {be(pl)} offered by {place}{tail}.", f"{cap(x)} {be(pl)} provided by {place}{tail}."],
                [f"{cap(x)} {be(pl)} not offered by {place}{tail}.", f"{cap(x)} {be(pl)} not provided by {place}{tail}."])


@frame("negation", "train")
def neg_dissolve(c: Ctx):
    comp = c.ch(["the compound", "the powder", "the salt", "the polymer", "the dye", "the pigment",
                 "the resin", "the crystal"])
    solv = c.ch(["water", "ethanol", "acetone", "cold water", "vegetable oil", "vinegar"])
    aff = f"{comp} dissolves in {solv} at room temperature."
    negd = f"{comp} does not dissolve in {solv} at room temperature."
    return _neg(c, aff, negd, [f"At room temperature, {comp} is soluble in {solv}."],
                [f"At room temperature, {comp} is not soluble in {solv}."])


# ===========================================================================
# ROLE SWAP  (negative: the two participants exchange places)
# ===========================================================================


@frame("role_swap", "test")
def rs_office(c: Ctx):
    a, b = c.pick("office_roles", 2)
    v = c.pick("people_verbs")
    adj = c.ch(["yesterday", "on Monday", "during the meeting", "last week", "at the conference",
                "in front of the whole team", "after the presentation", "on Tuesday morning",
                "during the quarterly planning session that ran well past six in the evening",
                "at the end of a long and difficult meeting about the new office layout"])
    anchor = f"The {a.sg} {v.past} the {b.sg} {adj}."
    neg = f"The {b.sg} {v.past} the {a.sg} {adj}."
    pos = [f"The {b.sg} was {v.pp} by the {a.sg} {adj}.",
           f"The {b.syn.sg} was {v.syn.pp} by the {a.syn.sg} {adj}.",
           f"{cap(adj)}, the {b.sg} was {v.pp} by the {a.syn.sg}."]
    return anchor, pos, neg


@frame("role_swap", "test")
def rs_clubs(c: Ctx):
    a, b = c.pick("clubs", 2)
    score = c.ch(["2-1", "3-0", "1-0", "4-2", "3-2", "2-0", "5-1"])
    rnd = c.ch(["in the semifinal", "in the cup final", "on Saturday", "in the opening round",
                "at the weekend", "in extra time", "in the league decider"])
    v = c.ch(["beat", "defeated"])
    anchor = f"{a.sg} {v} {b.sg} {score} {rnd}."
    neg = f"{b.sg} {v} {a.sg} {score} {rnd}."
    pos = [f"{b.sg} lost {score} to {a.sg} {rnd}.", f"{cap(rnd)}, {b.sg} lost to {a.sg} {score}.",
           f"{b.sg} suffered a {score} defeat against {a.sg} {rnd}."]
    return anchor, pos, neg


@frame("role_swap", "test")
def rs_companies(c: Ctx):
    a, b = c.pick("companies", 2)
    kind = c.ch(["acquire", "sue", "overtake", "supply"])
    if kind == "acquire":
        amt = c.ch(["$2 billion", "$300 million", "an undisclosed sum", "$45 million in cash"])
        when = c.ch(["last year", "in 2021", "after months of talks", "in a surprise deal"])
        anchor = f"{a.sg} acquired {b.sg} for {amt} {when}."
        neg = f"{b.sg} acquired {a.sg} for {amt} {when}."
        pos = [f"{b.sg} was acquired by {a.sg} for {amt} {when}.", f"{a.sg} bought {b.sg} for {amt} {when}.",
               f"{cap(when)}, {b.sg} was bought by {a.sg} for {amt}."]
    elif kind == "sue":
        issue = c.ch(["a patent dispute", "unpaid fees", "a broken licensing deal", "a trademark dispute",
                      "a failed software project"])
        anchor = f"{a.sg} sued {b.sg} over {issue}."
        neg = f"{b.sg} sued {a.sg} over {issue}."
        pos = [f"{b.sg} was sued by {a.sg} over {issue}.", f"Over {issue}, {b.sg} was taken to court by {a.sg}."]
    elif kind == "overtake":
        mkt = c.ch(["European", "online", "wholesale", "Asian", "domestic"])
        when = c.ch(["last quarter", "in 2022", "for the first time", "this spring"])
        anchor = f"{a.sg} overtook {b.sg} in {mkt} sales {when}."
        neg = f"{b.sg} overtook {a.sg} in {mkt} sales {when}."
        pos = [f"{b.sg} was overtaken by {a.sg} in {mkt} sales {when}.",
               f"{cap(when)}, {a.sg} passed {b.sg} in {mkt} sales."]
    else:
        parts = c.ch(["spare parts", "packaging", "raw materials", "cloud storage", "office furniture"])
        anchor = f"{a.sg} supplies {b.sg} with {parts} under a long-term deal."
        neg = f"{b.sg} supplies {a.sg} with {parts} under a long-term deal."
        pos = [f"{a.sg} provides {parts} to {b.sg} under a long-term deal.",
               f"Under a long-term deal, {b.sg} is supplied with {parts} by {a.sg}."]
    return anchor, pos, neg


DITRANSITIVE = (
    # past, participle, objects
    ("sent", "sent", ("a postcard", "the invoice", "a birthday card", "the photos", "a parcel")),
    ("lent", "lent", ("some money", "an umbrella", "a ladder", "the spare keys", "a book")),
    ("showed", "shown", ("the photos", "the floor plan", "the new recipe", "the letter", "the results")),
    ("handed", "handed", ("the tickets", "the letter", "a note", "the house keys", "the floor plan")),
    ("offered", "offered", ("a lift", "a job", "a seat", "some advice", "a discount")),
    ("gave", "given", ("a present", "a lift", "some advice", "the spare key", "a warning")),
)


@frame("role_swap", "test")
def rs_ditransitive(c: Ctx):
    a, b = c.pick("names", 2)
    past, pp, objs = c.ch(DITRANSITIVE)
    obj = c.ch(objs)
    when = c.ch(["last night", "on Friday", "yesterday", "this morning", "before the holidays",
                 "after the meeting", "at the station"])
    anchor = f"{a.sg} {past} {b.sg} {obj} {when}."
    neg = f"{b.sg} {past} {a.sg} {obj} {when}."
    pos = [f"{a.sg} {past} {obj} to {b.sg} {when}.", f"{b.sg} was {pp} {obj} by {a.sg} {when}.",
           f"{cap(when)}, {a.sg} {past} {obj} to {b.sg}."]
    return anchor, pos, neg


@frame("role_swap", "test")
def rs_services(c: Ctx):
    a, b = c.pick("services", 2)
    v = c.pick("service_verbs")
    cond = c.ch(["whenever a user logs in", "every five minutes", "during checkout", "at startup",
                 "before each deployment", "after every failed request", "when the queue is full",
                 "whenever a user in the European region signs in from a new device",
                 "each time the nightly job that cleans up expired sessions finishes"])
    anchor = f"The {a.sg} service {v.s} the {b.sg} service {cond}."
    neg = f"The {b.sg} service {v.s} the {a.sg} service {cond}."
    pos = [f"The {b.sg} service is {v.pp} by the {a.sg} service {cond}.",
           f"{cap(cond)}, the {b.sg} service is {v.pp} by the {a.sg} service."]
    return anchor, pos, neg


@frame("role_swap", "test")
def rs_medicine(c: Ctx):
    a, b = c.pick("med_roles", 2)
    v = c.pick("med_verbs")
    adj = c.ch(["before the operation", "during the night shift", "in the emergency room",
                "on the cardiac ward", "at the start of the shift", "twice last week"])
    anchor = f"The {a.sg} {v.past} the {b.sg} {adj}."
    neg = f"The {b.sg} {v.past} the {a.sg} {adj}."
    pos = [f"The {b.syn.sg} was {v.pp} by the {a.syn.sg} {adj}.",
           f"{cap(adj)}, the {b.sg} was {v.syn.pp} by the {a.sg}."]
    return anchor, pos, neg


@frame("role_swap", "test")
def rs_animals(c: Ctx):
    a, b = c.pick("animals", 2)
    v = c.pick("animal_verbs")
    if v.base in ("chase", "follow", "stalk"):
        place = c.ch(["across the yard", "through the garden", "around the barn", "along the riverbank"])
    else:
        place = c.ch(["near the pond", "in the park", "behind the farmhouse", "by the hedge", "under the old oak"])
    da, db = c.ch([("the", "the"), ("a", "the"), ("the", "a"), ("a", "a")])
    npa = a.the if da == "the" else a.a
    npb = b.the if db == "the" else b.a
    anchor = f"{npa} {v.past} {npb} {place}."
    neg = f"{npb} {v.past} {npa} {place}."
    npb_s = b.syn.the if db == "the" else b.syn.a
    npa_s = a.syn.the if da == "the" else a.syn.a
    pos = [f"{npb_s} was {v.pp} by {npa_s} {place}.", f"{cap(place)}, {npb} was {v.syn.pp} by {npa}."]
    return anchor, pos, neg


# --- role swap / train ------------------------------------------------------


@frame("role_swap", "train")
def rs_habitual(c: Ctx):
    a, b = c.pick("names", 2)
    v = c.pick("people_verbs")
    freq = c.ch(["every Friday", "twice a week", "almost every day", "at the end of each month",
                 "whenever the office is busy", "every other morning"])
    anchor = f"{a.sg} {v.s} {b.sg} {freq}."
    neg = f"{b.sg} {v.s} {a.sg} {freq}."
    pos = [f"{b.sg} is {v.pp} by {a.sg} {freq}.", f"{cap(freq)}, {b.sg} is {v.syn.pp} by {a.sg}."]
    return anchor, pos, neg


@frame("role_swap", "train")
def rs_cleft(c: Ctx):
    a, b = c.pick("office_roles", 2)
    v = c.pick("people_verbs")
    adj = c.ch(["", " at the board meeting", " after the audit", " over the phone", " in the end",
                " during the tense meeting about the restructuring plan last Thursday afternoon"])
    anchor = f"It was the {a.sg} who {v.past} the {b.sg}{adj}."
    neg = f"It was the {b.sg} who {v.past} the {a.sg}{adj}."
    pos = [f"The {b.sg} was {v.pp} by the {a.syn.sg}{adj}.", f"The {b.syn.sg} was {v.syn.pp} by the {a.sg}{adj}."]
    return anchor, pos, neg


@frame("role_swap", "train")
def rs_reported(c: Ctx):
    a, b = c.pick("med_roles", 2)
    v = c.pick("med_verbs")
    src = c.ch(["The hospital press officer", "The duty officer", "A senior colleague", "The incident report"])
    say = "states" if src == "The incident report" else "said"
    when = c.ch(["twice during the night", "shortly before midnight", "after the first complication",
                 "earlier that day"])
    anchor = f"{src} {say} that the {a.sg} had {v.pp} the {b.sg} {when}."
    neg = f"{src} {say} that the {b.sg} had {v.pp} the {a.sg} {when}."
    pos = [f"{src} {say} that the {b.sg} had been {v.pp} by the {a.syn.sg} {when}.",
           f"According to {src[0].lower() + src[1:]}, the {b.syn.sg} had been {v.pp} by the {a.sg} {when}."]
    return anchor, pos, neg


@frame("role_swap", "train")
def rs_paid(c: Ctx):
    a, b = c.pick("trade_roles", 2)
    amt = c.ch(["$300", "$1,200", "$85", "400 euros", "a deposit", "$2,000", "an advance"])
    svc = c.ch(["the repairs", "the extra hours", "the materials", "the consultation", "the first month",
                "the damage to the fence", "the late delivery"])
    anchor = f"The {a.sg} paid the {b.sg} {amt} for {svc}."
    neg = f"The {b.sg} paid the {a.sg} {amt} for {svc}."
    pos = [f"The {a.sg} paid {amt} to the {b.sg} for {svc}.", f"The {b.sg} was paid {amt} by the {a.sg} for {svc}.",
           f"For {svc}, the {b.sg} received {amt} from the {a.sg}."]
    return anchor, pos, neg


@frame("role_swap", "train")
def rs_tennis(c: Ctx):
    a, b = c.pick("names", 2)
    rnd = c.ch(["final", "quarterfinal", "second round", "club championship", "semifinal"])
    how = c.ch(["in straight sets", "after a tiebreak", "in three sets", "in five sets",
                "in under an hour"])
    v = c.ch(["beat", "defeated", "outplayed"])
    anchor = f"In the {rnd}, {a.sg} {v} {b.sg} {how}."
    neg = f"In the {rnd}, {b.sg} {v} {a.sg} {how}."
    pos = [f"{b.sg} lost to {a.sg} {how} in the {rnd}.", f"In the {rnd}, {b.sg} was {v if v != 'beat' else 'beaten'} by {a.sg} {how}."]
    return anchor, pos, neg


@frame("role_swap", "train")
def rs_progressive_co(c: Ctx):
    a, b = c.pick("companies", 2)
    if c.coin():
        issue = c.ch(["a patent dispute", "unpaid royalties", "a broken supply deal", "stolen trade secrets",
                      "misleading advertising"])
        anchor = f"{a.sg} is suing {b.sg} over {issue}."
        neg = f"{b.sg} is suing {a.sg} over {issue}."
        pos = [f"{b.sg} is being sued by {a.sg} over {issue}.", f"Over {issue}, {b.sg} is being taken to court by {a.sg}."]
    else:
        amt = c.ch(["$4 billion", "$900 million", "$60 million", "$1.5 billion"])
        anchor = f"{a.sg} is buying {b.sg} in a deal worth {amt}."
        neg = f"{b.sg} is buying {a.sg} in a deal worth {amt}."
        pos = [f"{b.sg} is being bought by {a.sg} in a deal worth {amt}.",
               f"In a deal worth {amt}, {b.sg} is being acquired by {a.sg}."]
    return anchor, pos, neg


@frame("role_swap", "train")
def rs_reported_to(c: Ctx):
    a, b = c.pick("legal_roles", 2)
    board = c.ch(["the disciplinary panel", "the bar association", "the ethics committee",
                  "the chief justice", "the oversight board"])
    why = c.ch(["for misconduct", "after the trial", "for missing the deadline", "last spring",
                "over a conflict of interest"])
    anchor = f"The {a.sg} reported the {b.sg} to {board} {why}."
    neg = f"The {b.sg} reported the {a.sg} to {board} {why}."
    pos = [f"The {b.sg} was reported to {board} by the {a.sg} {why}.",
           f"{cap(why)}, the {b.sg} was reported to {board} by the {a.sg}."]
    return anchor, pos, neg


@frame("role_swap", "train")
def rs_chasing(c: Ctx):
    a, b = c.pick("animals", 2)
    v = c.pick("animal_verbs")
    place = c.ch(["over the field", "along the fence", "through the tall grass", "near the bird feeder",
                  "across the parking lot", "at the edge of the woods"])
    anchor = f"{a.a} was {v.ing} {b.a} {place}."
    neg = f"{b.a} was {v.ing} {a.a} {place}."
    pos = [f"{b.a} was being {v.pp} by {a.a} {place}.", f"{cap(place)}, {b.syn.a} was being {v.syn.pp} by {a.syn.a}."]
    return anchor, pos, neg


# ===========================================================================
# ATTRIBUTE BINDING  (negative: the two modifiers exchange nouns)
# ===========================================================================


@frame("attribute_binding", "test")
def ab_parked(c: Ctx):
    c1, c2 = c.pick("colors", 2)
    v = c.pick("vehicles")
    b = c.pick("buildings")
    rel = c.ch(["in front of", "next to", "behind"])
    tail = c.ch(["", " on our street", " at the end of the road", " near the school",
                 " at the far end of the narrow lane that runs behind the school"])
    anchor = f"{A(c1.word, v.sg)} is parked {rel} {A(c2.word, b.sg)}{tail}."
    neg = f"{A(c2.word, v.sg)} is parked {rel} {A(c1.word, b.sg)}{tail}."
    pos = [f"There is {A(c1.word, v.syn.sg)} parked {rel} {A(c2.word, b.sg)}{tail}.",
           f"{A(c2.word, b.sg)}{tail} has {A(c1.word, v.syn.sg)} parked {rel} it."]
    return anchor, pos, neg


@frame("attribute_binding", "test")
def ab_people(c: Ctx):
    a1, a2 = c.pick("person_adjs", 2)
    n1, n2 = c.pick("person_nouns", 2)
    v = c.pick("people_adj_verbs")
    tail = c.ch(["", " at the entrance", " outside the station", " in the lobby", " on the platform",
                 " outside the main entrance of the old railway station early on Monday morning",
                 " in the crowded lobby of the museum shortly before the guided tour began"])
    anchor = f"The {a1.word} {n1.sg} {v.past} the {a2.word} {n2.sg}{tail}."
    neg = f"The {a2.word} {n1.sg} {v.past} the {a1.word} {n2.sg}{tail}."
    pos = [f"The {a2.word} {n2.sg} was {v.pp} by the {a1.word} {n1.sg}{tail}."]
    if tail:
        pos.append(f"{cap(tail.strip())}, the {a2.word} {n2.sg} was {v.pp} by the {a1.word} {n1.sg}.")
    return anchor, pos, neg


@frame("attribute_binding", "test")
def ab_menu(c: Ctx):
    a1, a2 = c.pick("dish_adjs", 2)
    d1, d2 = c.pick("dishes", 2)
    menu = c.ch(["lunch menu", "set menu", "tasting menu", "new menu", "winter menu"])
    anchor = f"The {menu} pairs {A(a1.word, d1.sg)} with {A(a2.word, d2.sg)}."
    neg = f"The {menu} pairs {A(a2.word, d1.sg)} with {A(a1.word, d2.sg)}."
    pos = [f"On the {menu}, {A(a2.word, d2.sg)} is paired with {A(a1.word, d1.sg)}.",
           f"{A(a1.word, d1.sg)} comes with {A(a2.word, d2.sg)} on the {menu}."]
    return anchor, pos, neg


@frame("attribute_binding", "test")
def ab_devices(c: Ctx):
    a1, a2 = c.pick("device_adjs", 2)
    d1, d2 = c.pick("devices", 2)
    if c.coin():
        anchor = f"The {a1.word} {d1.sg} is connected to the {a2.word} {d2.sg}."
        neg = f"The {a2.word} {d1.sg} is connected to the {a1.word} {d2.sg}."
        pos = [f"The {a2.word} {d2.sg} is connected to the {a1.word} {d1.sg}.",
               f"The {a2.word} {d2.sg} and the {a1.word} {d1.sg} are connected to each other."]
    else:
        who = c.ch(["Our", "The lab's", "Their", "The school's"])
        acc = c.ch(["power adapters", "batteries", "carrying cases", "docking stations", "memory cards",
                    "screen protectors"])
        anchor = f"{who} {a1.word} {d1.pl} need {a2.word} {acc} before the inspection."
        neg = f"{who} {a2.word} {d1.pl} need {a1.word} {acc} before the inspection."
        owner = {"Our": "our", "The lab's": "the lab's", "Their": "their", "The school's": "the school's"}[who]
        pos = [f"Before the inspection, {owner} {a1.word} {d1.pl} need {a2.word} {acc}.",
               f"{cap(a2.word)} {acc} are needed for {owner} {a1.word} {d1.pl} before the inspection."]
    return anchor, pos, neg


@frame("attribute_binding", "test")
def ab_legal(c: Ctx):
    a1, a2 = c.pick("pro_adjs", 2)
    r1, r2 = c.pick("legal_roles", 2)
    v = c.ch([("questioned", "questioned"), ("interrupted", "interrupted"), ("contradicted", "contradicted"),
              ("thanked", "thanked"), ("ignored", "ignored"), ("praised", "praised")])
    tail = c.ch(["", " during the hearing", " in court", " on the second day of the trial"])
    anchor = f"The {a1.word} {r1.sg} {v[0]} the {a2.word} {r2.sg}{tail}."
    neg = f"The {a2.word} {r1.sg} {v[0]} the {a1.word} {r2.sg}{tail}."
    pos = [f"The {a2.word} {r2.sg} was {v[1]} by the {a1.word} {r1.sg}{tail}."]
    return anchor, pos, neg


@frame("attribute_binding", "test")
def ab_clothes(c: Ctx):
    c1, c2 = c.pick("colors", 2)
    p1, p2 = c.pick("person_nouns", 2)
    k1, k2 = c.pick("clothes", 2)
    rel = c.ch(["behind", "in front of"])
    conv = SPATIAL_CONVERSE[rel]
    anchor = f"The {p1.sg} in the {c1.word} {k1.sg} is standing {rel} the {p2.sg} in the {c2.word} {k2.sg}."
    neg = f"The {p1.sg} in the {c2.word} {k1.sg} is standing {rel} the {p2.sg} in the {c1.word} {k2.sg}."
    pos = [f"The {p2.sg} in the {c2.word} {k2.syn.sg} is standing {conv} the {p1.sg} in the {c1.word} {k1.syn.sg}."]
    return anchor, pos, neg


@frame("attribute_binding", "test")
def ab_materials(c: Ctx):
    m1, m2 = c.pick("materials", 2)
    s1 = c.pick("loads")
    s2 = c.pick("supports")
    if c.coin():
        anchor = f"The {m1.word} {s1.sg} rests on the {m2.word} {s2.sg}."
        neg = f"The {m2.word} {s1.sg} rests on the {m1.word} {s2.sg}."
        pos = [f"The {m2.word} {s2.sg} supports the {m1.word} {s1.sg}.",
               f"The {m1.word} {s1.sg} is supported by the {m2.word} {s2.sg}."]
    else:
        anchor = f"The engineers bolted the {m1.word} {s1.sg} to the {m2.word} {s2.sg}."
        neg = f"The engineers bolted the {m2.word} {s1.sg} to the {m1.word} {s2.sg}."
        pos = [f"The {m1.word} {s1.sg} was bolted to the {m2.word} {s2.sg} by the engineers."]
    return anchor, pos, neg


# --- attribute binding / train ------------------------------------------------


@frame("attribute_binding", "train")
def ab_wore(c: Ctx):
    n = c.pick("names")
    p1, p2 = c.pick("patterns", 2)
    cl = c.pick("clothes")
    tr = c.pick("trousers")
    ev = c.ch(["the interview", "the wedding", "the office party", "dinner", "the concert", "the match"])
    anchor = f"{n.sg} wore {A(p1.word, cl.sg)} and {p2.word} {tr.pl} to {ev}."
    neg = f"{n.sg} wore {A(p2.word, cl.sg)} and {p1.word} {tr.pl} to {ev}."
    pos = [f"{n.sg} wore {p2.word} {tr.pl} and {A(p1.word, cl.syn.sg)} to {ev}.",
           f"To {ev}, {n.sg} wore {p2.word} {tr.pl} with {A(p1.word, cl.sg)}."]
    return anchor, pos, neg


@frame("attribute_binding", "train")
def ab_cafe(c: Ctx):
    n = c.pick("names")
    t1, t2 = c.pick("temps", 2)
    i1, i2 = c.pick("cafe_items", 2)
    tail = c.ch(["", " at the station buffet", " for lunch", " before the coach left", " from the kiosk"])
    anchor = f"{n.sg} ordered {A(t1.word, i1.sg)} and {A(t2.word, i2.sg)}{tail}."
    neg = f"{n.sg} ordered {A(t2.word, i1.sg)} and {A(t1.word, i2.sg)}{tail}."
    pos = [f"{n.sg} ordered {A(t2.word, i2.sg)} and {A(t1.word, i1.sg)}{tail}."]
    if tail:
        pos.append(f"{cap(tail.strip())}, {n.sg} asked for {A(t2.word, i2.sg)} and {A(t1.word, i1.sg)}.")
    return anchor, pos, neg


@frame("attribute_binding", "train")
def ab_overlooks(c: Ctx):
    a1, a2 = c.pick("place_adjs", 2)
    p1 = c.pick("lodgings")
    p2 = c.pick("views")
    anchor = f"The {a1.word} {p1.sg} overlooks the {a2.word} {p2.sg}."
    neg = f"The {a2.word} {p1.sg} overlooks the {a1.word} {p2.sg}."
    pos = [f"The {a2.word} {p2.sg} is overlooked by the {a1.word} {p1.sg}.",
           f"From the {a1.word} {p1.sg}, there is a view of the {a2.word} {p2.sg}."]
    return anchor, pos, neg


@frame("attribute_binding", "train")
def ab_firms(c: Ctx):
    a1, a2 = c.pick("firm_adjs", 2)
    f1, f2 = c.pick("firms", 2)
    tail = c.ch(["last spring", "for an undisclosed sum", "after months of talks", "in a hostile takeover",
                 "after months of difficult negotiations with the competition regulators in Brussels"])
    anchor = f"The {a1.word} {f1.sg} was bought by {A(a2.word, f2.sg)} {tail}."
    neg = f"The {a2.word} {f1.sg} was bought by {A(a1.word, f2.sg)} {tail}."
    pos = [f"{A(a2.word, f2.sg)} bought the {a1.word} {f1.sg} {tail}.",
           f"{A(a2.word, f2.sg)} acquired the {a1.word} {f1.sg} {tail}."]
    return anchor, pos, neg


@frame("attribute_binding", "train")
def ab_collide(c: Ctx):
    a1, a2 = c.pick("sizes", 2)
    s1, s2 = c.pick("shapes", 2)
    anchor = f"In the experiment, {A(a1.word, s1.sg)} collided with {A(a2.word, s2.sg)}."
    neg = f"In the experiment, {A(a2.word, s1.sg)} collided with {A(a1.word, s2.sg)}."
    pos = [f"{A(a1.word, s1.sg)} and {A(a2.word, s2.sg)} collided in the experiment.",
           f"In the experiment, {A(a2.word, s2.sg)} and {A(a1.word, s1.sg)} collided with each other."]
    return anchor, pos, neg


@frame("attribute_binding", "train")
def ab_passed_ball(c: Ctx):
    a1, a2 = c.pick("player_adjs", 2)
    p1, p2 = c.pick("players", 2)
    tail = c.ch(["", " in the final minute", " just before halftime", " from the corner", " on the counterattack",
                 " in the dying seconds of a tense and rain-soaked cup replay against the league leaders"])
    anchor = f"The {a1.word} {p1.sg} passed the ball to the {a2.word} {p2.sg}{tail}."
    neg = f"The {a2.word} {p1.sg} passed the ball to the {a1.word} {p2.sg}{tail}."
    pos = [f"The ball was passed to the {a2.word} {p2.sg} by the {a1.word} {p1.sg}{tail}.",
           f"The {a2.word} {p2.sg} received a pass from the {a1.word} {p1.sg}{tail}."]
    return anchor, pos, neg


@frame("attribute_binding", "train")
def ab_triage(c: Ctx):
    a1, a2 = c.pick("severity", 2)
    s1, s2 = c.pick("symptoms", 2)
    anchor = f"The patient with the {a1.word} {s1.sg} was seen before the patient with the {a2.word} {s2.sg}."
    neg = f"The patient with the {a2.word} {s1.sg} was seen before the patient with the {a1.word} {s2.sg}."
    pos = [f"The patient with the {a2.word} {s2.sg} was seen after the patient with the {a1.word} {s1.sg}."]
    return anchor, pos, neg


@frame("attribute_binding", "train")
def ab_furniture(c: Ctx):
    m1, m2 = c.pick("finishes", 2)
    f1, f2 = c.pick("furniture", 2)
    room = c.ch(["the hallway", "the study", "the waiting room", "the guest room", "the showroom"])
    anchor = f"{A(m1.word, f1.sg)} stands beside {A(m2.word, f2.sg)} in {room}."
    neg = f"{A(m2.word, f1.sg)} stands beside {A(m1.word, f2.sg)} in {room}."
    pos = [f"{A(m2.word, f2.syn.sg)} and {A(m1.word, f1.syn.sg)} stand side by side in {room}.",
           f"In {room}, {A(m1.word, f1.syn.sg)} and {A(m2.word, f2.sg)} stand next to each other."]
    return anchor, pos, neg


# ===========================================================================
# SPATIAL
# ===========================================================================


@frame("spatial", "test")
def sp_room(c: Ctx):
    o = c.pick("home_objects")
    f = c.pick("furniture")
    rel, opp = rel_pair(c, [LR, FB])
    room = c.ch(["", " in the living room", " in the study", " in the hallway", " in the spare bedroom"])
    anchor = f"The {o.sg} is {rel} the {f.sg}{room}."
    neg = f"The {o.sg} is {opp} the {f.sg}{room}."
    pos = [f"The {f.syn.sg} is {SPATIAL_CONVERSE[rel]} the {o.sg}{room}."]
    if room:
        pos.append(f"{cap(room.strip())}, the {f.sg} is {SPATIAL_CONVERSE[rel]} the {o.sg}.")
    return anchor, pos, neg


@frame("spatial", "test")
def sp_wall(c: Ctx):
    o, f = c.pick("wall_items", 2)
    rel, opp = rel_pair(c, [AB])
    v = c.ch(["hangs", "is mounted", "is hung"])
    where = c.ch(["", " in the kitchen", " in the office", " in the waiting room", " in the hallway"])
    anchor = f"The {o.sg} {v} directly {rel} the {f.sg}{where}."
    neg = f"The {o.sg} {v} directly {opp} the {f.sg}{where}."
    pos = [f"The {f.sg} {v} directly {SPATIAL_CONVERSE[rel]} the {o.sg}{where}."]
    if where:
        pos.append(f"{cap(where.strip())}, the {f.sg} is directly {SPATIAL_CONVERSE[rel]} the {o.sg}.")
    return anchor, pos, neg


@frame("spatial", "test")
def sp_geo(c: Ctx):
    a, b = c.pick("landmarks", 2)
    rel, opp = rel_pair(c, [NS, EW])
    dist = c.ch(["", "a few miles ", "just ", "about two kilometers ", "directly "])
    verb = c.ch(["lies", "is", "is located"])
    anchor = f"{a.sg} {verb} {dist}{rel} {b.sg}."
    neg = f"{a.sg} {verb} {dist}{opp} {b.sg}."
    pos = [f"{b.sg} {verb} {dist}{SPATIAL_CONVERSE[rel]} {a.sg}."]
    return anchor, pos, neg


@frame("spatial", "test")
def sp_scan(c: Ctx):
    organ = c.pick("organs")
    finding = c.ch(["a small cyst", "a shadow", "a fluid collection", "a small lesion",
                    "an enlarged lymph node", "a calcified nodule"])
    img = c.ch(["ultrasound", "CT image", "x-ray", "latest image", "follow-up ultrasound",
                "follow-up ultrasound taken after the second round of treatment",
                "CT image that the radiology team reviewed on Tuesday morning"])
    rel, opp = rel_pair(c, [AB, LR, FB])
    anchor = f"The {img} shows {finding} just {rel} the {organ.sg}."
    neg = f"The {img} shows {finding} just {opp} the {organ.sg}."
    pos = [f"Just {rel} the {organ.sg}, the {img} shows {finding}.",
           f"{cap(finding)} just {rel} the {organ.sg} is visible on the {img}."]
    return anchor, pos, neg


@frame("spatial", "test")
def sp_kitchen(c: Ctx):
    if c.coin():
        food = c.ch(["the sourdough", "the lasagna", "the cookies", "the roast", "the pizza", "the flapjacks",
                     "the granola", "the focaccia"])
        rel, opp = rel_pair(c, [("top", "bottom"), ("upper", "lower")])
        tail = c.ch(["", " for twenty minutes", " until it turns golden", " so that it browns evenly"])
        anchor = f"Bake {food} on the {rel} rack of the oven{tail}."
        neg = f"Bake {food} on the {opp} rack of the oven{tail}."
        pos = [f"{cap(food)} should be baked on the {rel} rack of the oven{tail}."]
    else:
        ing = c.pick("ingredients")
        rel, opp = rel_pair(c, [("inside", "outside")])
        anchor = f"Store the {ing.sg} {rel} the fridge once the package is open."
        neg = f"Store the {ing.sg} {opp} the fridge once the package is open."
        pos = [f"Once the package is open, the {ing.sg} should be stored {rel} the refrigerator."]
    return anchor, pos, neg


@frame("spatial", "test")
def sp_buttons(c: Ctx):
    b1, b2 = c.pick("ui_buttons", 2)
    rel, opp = rel_pair(c, [LR, AB])
    where = c.ch(["", " on the main screen", " in the new layout", " in the toolbar", " on mobile"])
    anchor = f"The {b1.sg} is {rel} the {b2.sg}{where}."
    neg = f"The {b1.sg} is {opp} the {b2.sg}{where}."
    pos = [f"The {b2.sg} is {SPATIAL_CONVERSE[rel]} the {b1.sg}{where}."]
    if where:
        pos.append(f"{cap(where.strip())}, the {b2.sg} sits {SPATIAL_CONVERSE[rel]} the {b1.sg}.")
    return anchor, pos, neg


@frame("spatial", "test")
def sp_photo(c: Ctx):
    a, b = c.pick("names", 2)
    rel, opp = rel_pair(c, [FB, LR])
    photo = c.ch(["team photo", "wedding photo", "class picture", "group shot", "graduation photo"])
    anchor = f"In the {photo}, {a.sg} is standing {rel} {b.sg}."
    neg = f"In the {photo}, {a.sg} is standing {opp} {b.sg}."
    pos = [f"In the {photo}, {b.sg} is standing {SPATIAL_CONVERSE[rel]} {a.sg}.",
           f"{b.sg} is standing {SPATIAL_CONVERSE[rel]} {a.sg} in the {photo}."]
    return anchor, pos, neg


@frame("spatial", "test")
def sp_pipes(c: Ctx):
    p1, p2 = c.sample(["water main", "gas line", "power cable", "fiber cable", "sewer pipe", "drainage pipe",
                       "heating duct", "storm drain"], 2)
    rel, opp = rel_pair(c, [AB, OU])
    where = c.ch(["along this street", "near the school", "for about fifty meters", "beneath the car park",
                  "outside the hospital",
                  "along the stretch of road between the primary school and the new shopping center"])
    anchor = f"The {p1} runs {rel} the {p2} {where}."
    neg = f"The {p1} runs {opp} the {p2} {where}."
    pos = [f"The {p2} runs {SPATIAL_CONVERSE[rel]} the {p1} {where}.",
           f"{cap(where)}, the {p2} runs {SPATIAL_CONVERSE[rel]} the {p1}."]
    return anchor, pos, neg


@frame("spatial", "test")
def sp_pet(c: Ctx):
    pet = c.ch(["kitten", "puppy", "hamster", "parrot", "ferret", "tortoise"])
    box = c.pick("containers")
    rel, opp = rel_pair(c, [("inside", "outside"), ("in", "on"), ("under", "on top of")])
    tail = c.ch(["", " again", " in the spare room", " by the window"])
    anchor = f"The {pet} is sleeping {rel} the {box.sg}{tail}."
    neg = f"The {pet} is sleeping {opp} the {box.sg}{tail}."
    pos = [f"The {pet} is asleep {rel} the {box.sg}{tail}."]
    return anchor, pos, neg


# --- spatial / train ----------------------------------------------------------


@frame("spatial", "train")
def sp_found(c: Ctx):
    n = c.pick("names")
    it = c.pick("small_items")
    kind = c.ch(["surface", "room", "furniture"])
    if kind == "surface":
        rel, opp = rel_pair(c, [("under", "on")])
        place = c.ch(["the passenger seat", "the kitchen table", "the garden bench", "the doormat", "the hall table"])
    elif kind == "room":
        rel, opp = rel_pair(c, [("inside", "outside")])
        place = c.ch(["the greenhouse", "the laundry room", "the garage", "the school entrance", "the changing room"])
    else:
        rel, opp = rel_pair(c, [FB])
        place = c.ch(["the washing machine", "the bookcase", "the fridge", "the radiator", "the front door"])
    pl = it.sg.endswith("s")
    when = c.ch(["", " on Saturday morning", " while tidying up after the long weekend with the whole family"])
    anchor = f"{n.sg} found the {it.sg} {rel} {place}{when}."
    neg = f"{n.sg} found the {it.sg} {opp} {place}{when}."
    pos = [f"The {it.sg} {be(pl, True)} found {rel} {place} by {n.sg}{when}."]
    if not when:
        pos.append(f"The {it.sg} {be(pl, True)} {rel} {place}, where {n.sg} found {'them' if pl else 'it'}.")
    return anchor, pos, neg


@frame("spatial", "train")
def sp_floor(c: Ctx):
    a, b = c.sample(["the yoga studio", "the law firm", "the accounting office", "the language school",
                     "the dance studio", "the daycare", "the recording studio", "the travel agency",
                     "the tattoo parlor", "the print shop"], 2)
    rel, opp = rel_pair(c, [AB])
    n = c.ch(["on the floor", "two floors", "three floors"])
    anchor = f"{a} is {n} {rel} {b} in our building."
    neg = f"{a} is {n} {opp} {b} in our building."
    pos = [f"In our building, {b} is {n} {SPATIAL_CONVERSE[rel]} {a}.",
           f"{b} is {n} {SPATIAL_CONVERSE[rel]} {a} in our building."]
    return anchor, pos, neg


@frame("spatial", "train")
def sp_queue(c: Ctx):
    who = c.ch(["passengers", "travelers", "spectators", "patients", "drivers", "commuters"])
    line = c.ch(["yellow line", "barrier", "rope", "white line", "red tape", "turnstiles"])
    until = c.ch(["the coach stops", "their name is called", "the doors open", "a member of staff waves them through",
                  "the announcement is made"])
    rel, opp = rel_pair(c, [FB])
    anchor = f"{who} must wait {rel} the {line} until {until}."
    neg = f"{who} must wait {opp} the {line} until {until}."
    pos = [f"Until {until}, {who} are required to wait {rel} the {line}."]
    return anchor, pos, neg


@frame("spatial", "train")
def sp_chamber(c: Ctx):
    sensor = c.ch(["the temperature sensor", "the pressure gauge", "the electrode", "the heating coil",
                   "the humidity probe", "the light source"])
    chamber = c.ch(["vacuum chamber", "test chamber", "enclosure", "incubator", "freezer", "fume hood"])
    rel, opp = rel_pair(c, [("inside", "outside"), AB])
    anchor = f"For this experiment, {sensor} is mounted {rel} the {chamber}."
    neg = f"For this experiment, {sensor} is mounted {opp} the {chamber}."
    pos = [f"For this experiment, the {chamber} has {sensor} mounted {rel} it.",
           f"{cap(sensor)} is mounted {rel} the {chamber} for this experiment."]
    return anchor, pos, neg


@frame("spatial", "train")
def sp_pain(c: Ctx):
    sym = c.ch(["a sharp pain", "a dull ache", "swelling", "numbness", "tingling", "a bruise"])
    joint = c.ch(["knee", "elbow", "ankle", "wrist", "hip", "shoulder blade"])
    side = c.ch(["left", "right"])
    rel, opp = rel_pair(c, [AB])
    anchor = f"The patient reports {sym} just {rel} the {side} {joint}."
    neg = f"The patient reports {sym} just {opp} the {side} {joint}."
    pos = [f"The patient says there is {sym} just {rel} the {side} {joint}.",
           f"According to the patient, there is {sym} just {rel} the {side} {joint}."]
    return anchor, pos, neg


@frame("spatial", "train")
def sp_tennis(c: Ctx):
    line = c.ch(["baseline", "sideline", "service line", "boundary line", "center line"])
    who = c.ch(["the umpire", "the line umpire", "the video review", "the referee"])
    rel, opp = rel_pair(c, [("inside", "outside"), FB] if line == "baseline" else [("inside", "outside")])
    shot = c.ch(["the ball", "the serve", "the lob", "the return", "the second serve", "the smash"])
    anchor = f"{who} ruled that {shot} landed {rel} the {line}."
    neg = f"{who} ruled that {shot} landed {opp} the {line}."
    pos = [f"According to {who}, {shot} came down {rel} the {line}."]
    return anchor, pos, neg


@frame("spatial", "train")
def sp_drawer(c: Ctx):
    things = c.ch(["spoons", "forks", "dish towels", "spare fuses", "takeaway menus", "light bulbs",
                   "candles", "rubber bands"])
    where = c.ch(["next to the sink", "by the oven", "of the bedside table", "in the pantry", "under the window"])
    rel, opp = rel_pair(c, [("top", "bottom"), ("upper", "lower")])
    anchor = f"The {things} go in the {rel} drawer {where}."
    neg = f"The {things} go in the {opp} drawer {where}."
    pos = [f"The {rel} drawer {where} is where the {things} go.",
           f"The {things} belong in the {rel} drawer {where}."]
    return anchor, pos, neg


@frame("spatial", "train")
def sp_widgets(c: Ctx):
    w1, w2 = c.sample(["search bar", "weather widget", "timer widget", "agenda widget", "news feed",
                       "shortcut bar", "status panel", "photo carousel"], 2)
    rel, opp = rel_pair(c, [AB, LR])
    anchor = f"On the home screen, the {w1} sits {rel} the {w2}."
    neg = f"On the home screen, the {w1} sits {opp} the {w2}."
    pos = [f"On the home screen, the {w2} sits {SPATIAL_CONVERSE[rel]} the {w1}.",
           f"The {w2} is {SPATIAL_CONVERSE[rel]} the {w1} on the home screen."]
    return anchor, pos, neg


# ===========================================================================
# QUANTITY
# ===========================================================================


@frame("quantity", "test")
def q_recipe(c: Ctx):
    dish = c.pick("dishes")
    n1 = c.ch(NUMS_SMALL)
    n2 = c.ch(NUMS_SMALL)
    i1 = c.ch(["sprigs of thyme", "carrots", "potatoes", "lemons", "red onions", "bay leaves", "shallots"])
    i2 = c.ch(["cups of stock", "tablespoons of butter", "teaspoons of salt", "cups of milk",
               "tablespoons of olive oil", "cups of water"])
    anchor = f"The {dish.sg} recipe calls for {n1} {i1} and {n2} {i2}."
    if c.coin():
        neg = f"The {dish.sg} recipe calls for {other(c, NUMS_SMALL, n1)} {i1} and {n2} {i2}."
    else:
        neg = f"The {dish.sg} recipe calls for {n1} {i1} and {other(c, NUMS_SMALL, n2)} {i2}."
    pos = [f"You need {n1} {i1} and {n2} {i2} to make the {dish.sg}.",
           f"{cap(n1)} {i1} and {n2} {i2} are needed for the {dish.sg} recipe."]
    return anchor, pos, neg


PERCENTS = tuple(str(p) for p in range(10, 95, 5))


@frame("quantity", "test")
def q_finance(c: Ctx):
    co = c.pick("companies")
    metric = c.ch(["revenue", "profit", "share price", "operating costs", "online sales", "export volume"])
    v, vs = c.ch([("rose", "increased"), ("fell", "decreased"), ("grew", "increased"), ("dropped", "decreased")])
    pct = c.ch(PERCENTS)
    period = c.ch(["in the third quarter", "last year", "in the first half", "over the past decade", "in March",
                   "in the months to the end of September according to its latest quarterly filing"])
    anchor = f"{co.sg}'s {metric} {v} {pct} percent {period}."
    neg = f"{co.sg}'s {metric} {v} {other(c, PERCENTS, pct)} percent {period}."
    pos = [f"{cap(period)}, {co.sg}'s {metric} {vs} by {pct} percent.",
           f"{cap(period)}, the {metric} of {co.sg} {v} by {pct} percent."]
    return anchor, pos, neg


QUANTS = ("all", "most", "some", "few", "none", "half")


@frame("quantity", "test")
def q_passed(c: Ctx):
    q = c.ch(QUANTS)
    grp = c.ch(["students", "applicants", "candidates", "trainees", "participants", "new hires"])
    exam = c.ch(["the final exam", "the driving test", "the safety course", "the entrance exam",
                 "the fitness assessment", "the coding challenge"])
    when = c.ch(["", " this year", " on the first attempt", " last spring"])
    anchor = f"{q} of the {grp} passed {exam}{when}."
    neg = f"{other(c, QUANTS, q)} of the {grp} passed {exam}{when}."
    pos = [f"{exam} was passed by {q} of the {grp}{when}."]
    return anchor, pos, neg


@frame("quantity", "test")
def q_dosage(c: Ctx):
    drug = c.pick("drugs")
    n1 = c.ch(("two", "three", "four"))
    h = c.ch(("four", "six", "eight", "twelve"))
    tail = c.ch(["", " with food", " unless told otherwise", " while the fever lasts",
                 " with a full glass of water unless the clinic has given them different instructions"])
    anchor = f"Patients on {drug.sg} should take {n1} tablets every {h} hours{tail}."
    if c.coin():
        neg = f"Patients on {drug.sg} should take {other(c, ('two', 'three', 'four'), n1)} tablets every {h} hours{tail}."
    else:
        neg = f"Patients on {drug.sg} should take {n1} tablets every {other(c, ('four', 'six', 'eight', 'twelve'), h)} hours{tail}."
    pos = [f"Every {h} hours, patients on {drug.sg} should take {n1} tablets{tail}.",
           f"Every {h} hours, patients on {drug.sg} should take {n1} pills{tail}."]
    return anchor, pos, neg


@frame("quantity", "test")
def q_servers(c: Ctx):
    q = c.ch(QUANTS)
    things = c.ch(["servers", "nodes", "virtual machines", "containers", "database replicas", "build agents"])
    place = c.ch(["cluster", "data center", "staging environment", "European region"])
    anchor = f"{q} of the {things} in the {place} were restarted overnight."
    neg = f"{other(c, QUANTS, q)} of the {things} in the {place} were restarted overnight."
    pos = [f"Overnight, {q} of the {things} in the {place} were rebooted."]
    return anchor, pos, neg


@frame("quantity", "test")
def q_goals(c: Ctx):
    club = c.pick("clubs")
    n = c.ch(NUMS_SMALL)
    period = c.ch(["in the first half", "in the second half", "in the last ten minutes", "in extra time"])
    tail = c.ch(["", " against the league leaders", " despite the rain", " on Saturday"])
    anchor = f"{club.sg} scored {n} goals {period}{tail}."
    neg = f"{club.sg} scored {other(c, NUMS_SMALL, n)} goals {period}{tail}."
    pos = [f"{cap(n)} goals were scored by {club.sg} {period}{tail}.",
           f"{cap(period)}, {club.sg} found the net {n} times{tail}."]
    return anchor, pos, neg


MINUTES = ("ten", "fifteen", "twenty", "thirty", "forty")


@frame("quantity", "test")
def q_timetable(c: Ctx):
    tr = c.ch([t for t in pool("transport", c.split)
               if t.sg.endswith(("train", "bus", "coach")) and not t.sg.startswith(("overnight", "night"))])
    city = c.pick("cities")
    n = c.ch(MINUTES)
    tail = c.ch(["", " on weekdays", " during rush hour", " in the summer", " until midnight"])
    anchor = f"The {tr.sg} to {city.sg} leaves every {n} minutes{tail}."
    neg = f"The {tr.sg} to {city.sg} leaves every {other(c, MINUTES, n)} minutes{tail}."
    pos = [f"Every {n} minutes{tail}, {tr.a} departs for {city.sg}.",
           f"There is {tr.a} to {city.sg} every {n} minutes{tail}."]
    return anchor, pos, neg


DAYS = ("14", "30", "60", "90", "45", "7")


@frame("quantity", "test")
def q_notice(c: Ctx):
    doc, ev = c.ch([("the consulting agreement", "termination"), ("the lease", "the occupant moves out"),
                    ("the employment agreement", "an employee resigns"),
                    ("the service agreement", "any price change"), ("the rental agreement", "the landlord can enter"),
                    ("the partnership agreement", "a partner sells their stake"),
                    ("the supply agreement", "either party can cancel")])
    d = c.ch(DAYS)
    anchor = f"{doc} requires {d} days of notice before {ev}."
    neg = f"{doc} requires {other(c, DAYS, d)} days of notice before {ev}."
    pos = [f"Under {doc}, {d} days of notice are required before {ev}."]
    return anchor, pos, neg


# --- quantity / train -----------------------------------------------------------


@frame("quantity", "train")
def q_bought(c: Ctx):
    n = c.pick("names")
    k = c.ch(NUMS_MID)
    items = c.ch(["apples", "oranges", "loaves of bread", "bottles of water", "packets of rice", "pears",
                  "avocados", "cartons of milk"])
    place = c.ch(["at the market", "at the corner shop", "on the way home", "for the picnic", "at the farm stand"])
    anchor = f"{n.sg} bought {k} {items} {place}."
    neg = f"{n.sg} bought {other(c, NUMS_MID, k)} {items} {place}."
    pos = [f"{cap(place)}, {n.sg} purchased {k} {items}."]
    return anchor, pos, neg


@frame("quantity", "train")
def q_survey(c: Ctx):
    p = c.ch(PERCENTS)
    svy = c.ch(["a recent survey", "a survey by the local newspaper",
                "a survey of households carried out by the university over the summer"])
    grp = c.ch(["residents", "voters", "parents", "commuters", "small business owners", "pensioners"])
    plan = c.ch(["new park", "bike lane", "school merger", "night-time curfew", "light rail extension",
                 "congestion charge"])
    anchor = f"{svy} found that {p} percent of {grp} support the {plan}."
    neg = f"{svy} found that {other(c, PERCENTS, p)} percent of {grp} support the {plan}."
    pos = [f"According to {svy}, the {plan} is supported by {p} percent of {grp}."]
    return anchor, pos, neg


QUANTS_BARE = ("few", "many", "most", "several", "all", "some")


@frame("quantity", "train")
def q_attended(c: Ctx):
    q = c.ch(QUANTS_BARE)
    grp = c.ch(["employees", "volunteers", "shareholders", "club members", "parents", "staff members"])
    ev = c.ch(["the training session", "the annual meeting", "the fire drill", "the workshop",
               "the town hall meeting", "the farewell lunch"])
    when = c.ch(["", " last Thursday", " this year", " despite the weather"])
    anchor = f"{q} {grp} attended {ev}{when}."
    neg = f"{other(c, QUANTS_BARE, q)} {grp} attended {ev}{when}."
    pos = [f"{ev} was attended by {q} {grp}{when}."]
    return anchor, pos, neg


TONNES = ("20", "40", "60", "80", "120", "35", "15")


@frame("quantity", "train")
def q_load(c: Ctx):
    infra = c.pick("structures_infra")
    t = c.ch(TONNES)
    tail = c.ch(["", " after the upgrade", " according to the surveyors", " in dry weather"])
    anchor = f"The {infra.sg} can carry up to {t} tonnes{tail}."
    neg = f"The {infra.sg} can carry up to {other(c, TONNES, t)} tonnes{tail}."
    pos = [f"The maximum load of the {infra.sg} is {t} tonnes{tail}.",
           f"Up to {t} tonnes can be carried by the {infra.sg}{tail}."]
    return anchor, pos, neg


ENROLLED = ("120", "240", "85", "300", "64", "500", "150")
SITES = ("two", "three", "four", "five", "six", "eight")


@frame("quantity", "train")
def q_study(c: Ctx):
    st = c.ch(["study", "trial", "pilot study", "new trial"])
    who = c.ch(["patients", "volunteers", "children", "adults"])
    sites = c.ch(["hospitals", "clinics", "countries", "universities"])
    n = c.ch(ENROLLED)
    m = c.ch(SITES)
    anchor = f"The {st} enrolled {n} {who} across {m} {sites}."
    if c.coin():
        neg = f"The {st} enrolled {other(c, ENROLLED, n)} {who} across {m} {sites}."
    else:
        neg = f"The {st} enrolled {n} {who} across {other(c, SITES, m)} {sites}."
    pos = [f"Across {m} {sites}, {n} {who} were enrolled in the {st}."]
    return anchor, pos, neg


MULT = ("doubled", "tripled", "halved", "quadrupled")


@frame("quantity", "train")
def q_prices(c: Ctx):
    what = c.ch(["ticket prices for the final", "parking fees at the stadium", "season ticket prices",
                 "membership fees at the gym", "rents in the old town", "insurance premiums for young drivers"])
    v = c.ch(MULT)
    since = c.ch(["last season", "2019", "the pandemic", "the new owners took over", "the renovation"])
    anchor = f"{what} have {v} since {since}."
    neg = f"{what} have {other(c, MULT, v)} since {since}."
    pos = [f"Since {since}, {what} have {v}."]
    return anchor, pos, neg


ROOMS = ("twelve", "twenty", "forty", "sixty", "thirty", "fifteen")
FEW = ("two", "three", "four", "five")


@frame("quantity", "train")
def q_facilities(c: Ctx):
    place = c.ch(["the resort", "the guesthouse", "the conference center", "the lodge", "the inn",
                  "the country club"])
    n = c.ch(ROOMS)
    m = c.ch(FEW)
    extra = c.ch(["restaurants", "swimming pools", "meeting rooms", "tennis courts", "bars"])
    anchor = f"{place} has {n} bedrooms and {m} {extra}."
    if c.coin():
        neg = f"{place} has {other(c, ROOMS, n)} bedrooms and {m} {extra}."
    else:
        neg = f"{place} has {n} bedrooms and {other(c, FEW, m)} {extra}."
    pos = [f"There are {n} bedrooms and {m} {extra} at {place}."]
    return anchor, pos, neg


@frame("quantity", "train")
def q_every_tenant(c: Ctx):
    who = c.ch(["the letting agent", "the management company", "the housing association", "the council"])
    what = c.ch(["a warning letter", "a rent reminder", "a survey", "a parking permit", "a refund",
                 "an apology"])
    q = c.ch(["every", "no"])
    opp = "no" if q == "every" else "every"
    where = c.ch(["in the building", "on the third floor", "in the east wing", "in the new block"])
    anchor = f"{q} tenant {where} received {what} from {who}."
    neg = f"{opp} tenant {where} received {what} from {who}."
    qq = "all" if q == "every" else "none"
    pos = [f"{qq} of the tenants {where} received {what} from {who}."]
    return anchor, pos, neg


# ===========================================================================
# COMPARATIVE
# ===========================================================================


def _cmp(c: Ctx, a: str, b: str, pairs, tmpl: Callable[[str, str, str], str], swap_p: float = 0.3):
    """anchor = tmpl(a, w, b); negative reverses w or swaps the entities; positive is the converse."""
    w, o = rel_pair(c, pairs)
    anchor = tmpl(a, w, b)
    neg = tmpl(b, w, a) if c.coin(swap_p) else tmpl(a, o, b)
    pos = tmpl(b, o, a)
    return anchor, pos, neg


@frame("comparative", "test")
def cmp_transport(c: Ctx):
    a, b = c.pick("transport", 2)
    tail = c.ch(["", " on weekdays", " for this route", " during the holidays", " at night"])
    pairs = [("faster", "slower"), ("cheaper", "pricier"), ("more comfortable", "less comfortable"),
             ("more crowded", "less crowded"), ("more reliable", "less reliable")]
    anchor, pos, neg = _cmp(c, a.sg, b.sg, pairs, lambda x, w, y: f"The {x} is {w} than the {y}{tail}.")
    return anchor, [pos], neg


@frame("comparative", "test")
def cmp_assets(c: Ctx):
    a, b = c.pick("assets", 2)
    year = c.ch(["2019", "2022", "the last decade", "the first quarter", "the crisis year"])
    pairs = [("more volatile", "less volatile"), ("riskier", "safer"), ("more profitable", "less profitable"),
             ("more popular", "less popular")]

    def t(x, w, y):
        return f"In {year}, {x} proved {w} than {y}."

    anchor, pos, neg = _cmp(c, a.sg, b.sg, pairs, t)
    return anchor, [pos], neg


@frame("comparative", "test")
def cmp_drugs(c: Ctx):
    a, b = c.pick("drugs", 2)
    kind = c.ch(["recovered", "responded", "reported"])
    if kind == "recovered":
        pairs, tmpl = [("faster", "more slowly")], "patients on {x} recovered {w} than patients on {y}"
    elif kind == "responded":
        pairs, tmpl = [("better", "worse")], "patients on {x} responded {w} to treatment than patients on {y}"
    else:
        pairs, tmpl = [("fewer", "more")], "patients on {x} reported {w} side effects than patients on {y}"
    tail = c.ch(["", " in the trial", " in the first week", " according to the study",
                 " in the large trial that ran at several regional hospitals last winter"])
    anchor, pos, neg = _cmp(c, a.sg, b.sg, pairs, lambda x, w, y: tmpl.format(x=x, w=w, y=y) + tail + ".")
    return anchor, [pos], neg


@frame("comparative", "test")
def cmp_lang(c: Ctx):
    a, b = c.pick("languages", 2)
    tool = c.ch(["parser", "image resizer", "log analyzer", "web server", "command-line tool", "game engine"])
    kind = c.ch(["memory", "deps", "start"])
    if kind == "memory":
        pairs, tmpl = [("less", "more")], "the {x} version of the {tool} uses {w} memory than the {y} version"
    elif kind == "deps":
        pairs, tmpl = [("fewer", "more")], "the {x} version of the {tool} has {w} dependencies than the {y} version"
    else:
        pairs, tmpl = [("faster", "slower")], "the {x} version of the {tool} is {w} to start than the {y} version"
    anchor, pos, neg = _cmp(c, a.sg, b.sg, pairs, lambda x, w, y: tmpl.format(x=x, w=w, y=y, tool=tool) + ".")
    return anchor, [pos], neg


@frame("comparative", "test")
def cmp_race(c: Ctx):
    a, b = c.pick("names", 2)
    if c.coin():
        race = c.ch(["marathon", "half marathon", "5K", "relay leg", "hill climb", "triathlon"])
        pairs = [("faster", "more slowly")]
        f = lambda x, w, y: f"{x} ran the {race} {w} than {y}."  # noqa: E731
    else:
        meet = c.ch(["regional meet", "school championships", "indoor trials", "club meeting"])
        if c.coin():
            pairs = [("higher", "lower")]
            f = lambda x, w, y: f"{x} cleared a {w} bar than {y} at the {meet}."  # noqa: E731
        else:
            pairs = [("heavier", "lighter")]
            f = lambda x, w, y: f"{x} lifted a {w} weight than {y} at the {meet}."  # noqa: E731
    anchor, pos, neg = _cmp(c, a.sg, b.sg, pairs, f)
    return anchor, [pos], neg


@frame("comparative", "test")
def cmp_dishes(c: Ctx):
    a, b = c.pick("dishes", 2)
    tail = c.ch(["", " at this bistro", " on the new menu", " in the cookbook"])
    pairs = [("spicier", "milder"), ("thicker", "thinner"), ("richer", "lighter"), ("sweeter", "saltier"),
             ("hotter", "cooler")]
    anchor, pos, neg = _cmp(c, a.sg, b.sg, pairs, lambda x, w, y: f"The {x} is {w} than the {y}{tail}.")
    return anchor, [pos], neg


@frame("comparative", "test")
def cmp_flats(c: Ctx):
    a, b = c.pick("streets", 2)
    pairs = [("larger", "smaller"), ("cheaper", "pricier"), ("quieter", "louder"), ("brighter", "darker")]
    tail = c.ch(["", " according to the agent", ", as we saw when we viewed both of them last weekend",
                 " in the listing that the letting agency sent us on Friday"])
    anchor, pos, neg = _cmp(c, a.sg, b.sg, pairs,
                            lambda x, w, y: f"The apartment on {x} is {w} than the one on {y}{tail}.")
    return anchor, [pos], neg


@frame("comparative", "test")
def cmp_samples(c: Ctx):
    a, b = c.sample(["A", "B", "C", "D", "E", "F"], 2)
    pairs = [("more acidic", "less acidic"), ("denser", "less dense"), ("warmer", "colder"),
             ("more conductive", "less conductive")]
    when = c.ch(["", " after heating", " at the end of the run", " in the second test"])
    anchor, pos, neg = _cmp(c, a, b, pairs, lambda x, w, y: f"Sample {x} was {w} than sample {y}{when}.")
    return anchor, [pos], neg


# --- comparative / train --------------------------------------------------------


@frame("comparative", "train")
def cmp_compared(c: Ctx):
    a, b = c.pick("lodgings", 2)
    pairs = [("cheaper", "pricier"), ("busier", "quieter"), ("more spacious", "less spacious"),
             ("more modern", "less modern")]
    w, o = rel_pair(c, pairs)
    tail = c.ch(["", " in high season", " for families", " on weekends"])
    anchor = f"Compared with the {b.sg}, the {a.sg} is {w}{tail}."
    neg = (f"Compared with the {a.sg}, the {b.sg} is {w}{tail}." if c.coin(0.3)
           else f"Compared with the {b.sg}, the {a.sg} is {o}{tail}.")
    pos = [f"The {b.sg} is {o} than the {a.sg}{tail}."]
    return anchor, pos, neg


@frame("comparative", "train")
def cmp_companies(c: Ctx):
    a, b = c.pick("companies", 2)
    x = c.ch(["employees", "subscribers", "stores", "patents", "branches", "delivery vans"])
    when = c.ch(["", " in Europe", " this year", " after the merger",
                 " according to the figures published in their latest annual reports"])
    anchor, pos, neg = _cmp(c, a.sg, b.sg, [("more", "fewer")],
                            lambda p, w, q: f"{p} has {w} {x} than {q}{when}.")
    return anchor, [pos], neg


@frame("comparative", "train")
def cmp_earn(c: Ctx):
    a, b = c.pick("names", 2)
    v, tail = c.ch([("earns", " at the firm"), ("earns", " per hour"), ("earns", " since the promotion"),
                    ("invests", " each month"), ("invests", " every year"), ("spends", " on groceries"),
                    ("spends", " on travel each year"), ("travels", " for work"), ("reads", " in a typical week")])
    anchor, pos, neg = _cmp(c, a.sg, b.sg, [("more", "less")], lambda p, w, q: f"{p} {v} {w} than {q}{tail}.")
    return anchor, [pos], neg


@frame("comparative", "train")
def cmp_frames(c: Ctx):
    a, b = c.pick("frames_engineering", 2)
    pairs = [("lighter", "heavier"), ("stronger", "weaker"), ("cheaper", "pricier"), ("stiffer", "softer")]
    what = c.ch(["", " of the racing bike", " in this design", " of the prototype"])
    anchor, pos, neg = _cmp(c, a.sg, b.sg, pairs, lambda p, w, q: f"The {p}{what} is {w} than the {q}.")
    return anchor, [pos], neg


@frame("comparative", "train")
def cmp_points(c: Ctx):
    a, b = c.pick("clubs", 2)
    period = c.ch(["this season", "in the play-offs", "over the last five games", "at home", "in the second half"])
    anchor, pos, neg = _cmp(c, a.sg, b.sg, [("more", "fewer")],
                            lambda p, w, q: f"{p} scored {w} points than {q} {period}.")
    return anchor, [pos], neg


@frame("comparative", "train")
def cmp_flights(c: Ctx):
    a, b = c.pick("cities", 2)
    pairs = [("longer", "shorter"), ("cheaper", "pricier"), ("busier", "quieter")]
    when = c.ch(["usually", "often", "in winter", "this year"])
    if when in ("usually", "often"):
        f = lambda p, w, q: f"Flights to {p} are {when} {w} than flights to {q}."  # noqa: E731
    else:
        f = lambda p, w, q: f"Flights to {p} are {w} than flights to {q} {when}."  # noqa: E731
    anchor, pos, neg = _cmp(c, a.sg, b.sg, pairs, f)
    return anchor, [pos], neg


@frame("comparative", "train")
def cmp_trial(c: Ctx):
    a, b = c.pick("groups", 2)
    kind = c.ch(["improved", "had", "recovered"])
    when = c.ch(["In the trial", "After six weeks", "By the end of the study", "In the first month"])
    if kind == "improved":
        f = lambda p, w, q: f"{when}, the {p} improved {w} than the {q}."  # noqa: E731
        pairs = [("more", "less")]
    elif kind == "had":
        f = lambda p, w, q: f"{when}, the {p} had {w} side effects than the {q}."  # noqa: E731
        pairs = [("fewer", "more")]
    else:
        f = lambda p, w, q: f"{when}, the {p} recovered {w} than the {q}."  # noqa: E731
        pairs = [("faster", "more slowly")]
    anchor, pos, neg = _cmp(c, a.sg, b.sg, pairs, f)
    return anchor, [pos], neg


@frame("comparative", "train")
def cmp_rules(c: Ctx):
    x, y = c.ch([("new lease", "old lease"), ("draft policy", "final policy"), ("revised rules", "original rules"),
                 ("city ordinance", "state law"), ("current contract", "previous contract"),
                 ("updated code of conduct", "old code of conduct")])
    if c.coin():
        x, y = y, x
    pairs = [("stricter", "more lenient"), ("longer", "shorter"), ("clearer", "vaguer")]
    topic = c.ch(["on this point", "on overtime", "on remote work", "on pets", "on late payments",
                  "on noise at night"])

    def t(p, w, q):
        return f"The {p} {be(p.endswith('rules'))} {w} than the {q} {topic}."

    anchor, pos, neg = _cmp(c, x, y, pairs, t)
    return anchor, [pos], neg


# ===========================================================================
# TEMPORAL ORDER
# ===========================================================================

BA = ("before", "after")

ROUTINE = (
    ("locked the gate", "locking the gate"), ("turned off the lights", "turning off the lights"),
    ("made coffee", "making coffee"), ("checked the weather", "checking the weather"),
    ("packed a lunch", "packing a lunch"), ("read the news", "reading the news"),
    ("went for a run", "going for a run"), ("took a shower", "taking a shower"),
    ("answered her emails", "answering her emails"), ("paid the bills", "paying the bills"),
    ("watered the garden", "watering the garden"), ("charged the laptop", "charging the laptop"),
)


@frame("temporal_order", "test")
def t_routine(c: Ctx):
    n = c.pick("names")
    (p1, g1), (p2, g2) = c.sample([r for r in ROUTINE if "her" not in r[0]], 2)
    conn, opp = rel_pair(c, [BA])
    tail = c.ch(["", " this morning", " on Sunday", " yesterday", " last night"])
    anchor = f"{n.sg} {p1} {conn} {g2}{tail}."
    neg = f"{n.sg} {p1} {opp} {g2}{tail}."
    pos = [f"{n.sg} {p2} {opp} {g1}{tail}.", f"{cap(conn)} {g2}, {n.sg} {p1}{tail}."]
    return anchor, pos, neg


@frame("temporal_order", "test")
def t_fasting(c: Ctx):
    proc = c.pick("schedules")
    act = c.ch(["fast", "avoid caffeine", "avoid smoking", "drink only clear fluids", "avoid heavy meals",
                "rest quietly"])
    n = c.ch(["six", "eight", "twelve", "twenty-four", "forty-eight"])
    conn, opp = rel_pair(c, [BA])
    anchor = f"The patient must {act} for {n} hours {conn} the {proc.sg}."
    neg = f"The patient must {act} for {n} hours {opp} the {proc.sg}."
    pos = [f"{cap(conn)} the {proc.sg}, the patient must {act} for {n} hours.",
           f"{cap(conn)} the {proc.sg}, the patient is required to {act} for {n} hours."]
    return anchor, pos, neg


JOBS = ("backup job", "database migration", "nightly build", "cache refresh", "test suite", "data export",
        "index rebuild", "log rotation")


@frame("temporal_order", "test")
def t_jobs(c: Ctx):
    j1, j2 = c.sample(JOBS, 2)
    conn, opp = rel_pair(c, [BA])
    if c.coin():
        v1, v2 = "runs", "starts"
        where = c.ch(["", " on the production cluster", " every night on the main database server"])
    else:
        v1, v2 = "ran", "started"
        where = c.ch(["", " last night", " during the outage that took the payment system offline on Sunday"])
    anchor = f"The {j1} {v1} {conn} the {j2} {v2}{where}."
    neg = f"The {j1} {v1} {opp} the {j2} {v2}{where}."
    pos = [f"The {j2} {v2} {opp} the {j1} {v1}{where}."]
    if where:
        pos.append(f"{cap(where.strip())}, the {j1} {v1} {conn} the {j2} {v2}.")
    else:
        pos.append(f"{cap(conn)} the {j2} {v2}, the {j1} {v1}.")
    return anchor, pos, neg


@frame("temporal_order", "test")
def t_earnings(c: Ctx):
    co = c.pick("companies")
    ev = c.ch(["released its earnings report", "announced the layoffs", "cut its dividend", "revised its forecast",
               "named a new chief executive", "confirmed the merger"])
    mk = c.ch(["trading opened", "trading closed", "the board met", "the regulator ruled",
               "the shareholders voted"])
    conn, opp = rel_pair(c, [BA])
    anchor = f"{co.sg} {ev} {conn} {mk}."
    neg = f"{co.sg} {ev} {opp} {mk}."
    pos = [f"{cap(mk)} {opp} {co.sg} {ev}.", f"{cap(conn)} {mk}, {co.sg} {ev}."]
    return anchor, pos, neg


LEGAL_EVENTS = ("the agreement was signed", "the inspection took place", "the deposit was paid",
                "the new occupant moved in", "the lease expired", "the complaint was filed", "the hearing was scheduled",
                "the first statement was taken", "the evidence was disclosed", "the settlement was reached")


@frame("temporal_order", "test")
def t_legal(c: Ctx):
    e1, e2 = c.sample(LEGAL_EVENTS, 2)
    conn, opp = rel_pair(c, [BA])
    src = c.ch(["", "according to the case file, ", "the court heard that ",
                "as the judge noted in her written decision at the end of the hearing, "])
    anchor = f"{src}{e1} {conn} {e2}."
    neg = f"{src}{e1} {opp} {e2}."
    pos = [f"{src}{e2} {opp} {e1}."]
    if not src:
        pos.append(f"{cap(conn)} {e2}, {e1}.")
    return anchor, pos, neg


COOK_STEPS = (
    ("preheat the oven", "preheating the oven"), ("chop the onions", "chopping the onions"),
    ("rinse the rice", "rinsing the rice"), ("melt the butter", "melting the butter"),
    ("grease the pan", "greasing the pan"), ("season the meat", "seasoning the meat"),
    ("toast the spices", "toasting the spices"), ("peel the potatoes", "peeling the potatoes"),
    ("soak the beans", "soaking the beans"), ("zest the lemon", "zesting the lemon"),
)


@frame("temporal_order", "test")
def t_cooking(c: Ctx):
    (i1, g1), (i2, g2) = c.sample(COOK_STEPS, 2)
    conn, opp = rel_pair(c, [BA])
    tail = c.ch(["", " for the best results", " to save time"])
    anchor = f"{i1} {conn} {g2}{tail}."
    neg = f"{i1} {opp} {g2}{tail}."
    pos = [f"{i2} {opp} {g1}{tail}."]
    return anchor, pos, neg


@frame("temporal_order", "test")
def t_arrival(c: Ctx):
    a, b = c.pick("transport", 2)
    n = c.ch(["ten", "five", "twenty", "fifteen", "forty"])
    conn, opp = rel_pair(c, [("earlier", "later")])
    where = c.ch(["", " at the terminal", " at the central station", " this morning"])
    anchor = f"The {a.sg} arrived {n} minutes {conn} than the {b.sg}{where}."
    neg = f"The {a.sg} arrived {n} minutes {opp} than the {b.sg}{where}."
    pos = [f"The {b.sg} arrived {n} minutes {opp} than the {a.sg}{where}."]
    return anchor, pos, neg


MATCH_EVENTS = ("opening goal", "red card", "penalty", "injury stoppage", "equalizer", "first substitution",
                "floodlight failure", "pitch invasion")


@frame("temporal_order", "test")
def t_match(c: Ctx):
    e1, e2 = c.sample(MATCH_EVENTS, 2)
    club = c.pick("clubs")
    conn, opp = rel_pair(c, [BA])
    anchor = f"In the {club.sg} game, the {e1} came {conn} the {e2}."
    neg = f"In the {club.sg} game, the {e1} came {opp} the {e2}."
    # e1 before e2  <=>  e2 was preceded by e1;  e1 after e2  <=>  e2 was followed by e1
    conv = "preceded" if conn == "before" else "followed"
    pos = [f"In the {club.sg} game, the {e2} came {opp} the {e1}.",
           f"In the {club.sg} game, the {e2} was {conv} by the {e1}."]
    return anchor, pos, neg


# --- temporal / train -------------------------------------------------------------

BACKGROUND = ("the storm passed", "the power came back", "the guests arrived", "the inspectors left",
              "the water was shut off", "the scaffolding went up", "the rain stopped", "the last bus left")
ACTIONS = ("the crew repaired the roof", "the staff cleaned the hall", "the residents moved the bins",
           "the mechanics tested the pumps", "the volunteers set up the tables", "the caretaker locked the building",
           "the scaffolders finished the facade", "the tenants held a meeting")


@frame("temporal_order", "train")
def t_fronted(c: Ctx):
    bg = c.ch(BACKGROUND)
    act = c.ch(ACTIONS)
    conn, opp = rel_pair(c, [BA])
    anchor = f"{conn} {bg}, {act}."
    neg = f"{opp} {bg}, {act}."
    pos = [f"{act} {conn} {bg}.", f"{bg} {opp} {act}."]
    return anchor, pos, neg


@frame("temporal_order", "train")
def t_completed(c: Ctx):
    a, b = c.pick("structures_infra", 2)
    n = c.ch(["two years", "six months", "a decade", "three years", "eight months"])
    conn, opp = rel_pair(c, [("earlier", "later")])
    anchor = f"The {a.sg} was completed {n} {conn} than the {b.sg}."
    neg = f"The {a.sg} was completed {n} {opp} than the {b.sg}."
    pos = [f"The {b.sg} was completed {n} {opp} than the {a.sg}.",
           f"The {b.sg} was finished {n} {opp} than the {a.sg}."]
    return anchor, pos, neg


BIZ_EVENTS = ("merger", "layoffs", "stock split", "product recall", "rebranding", "price increase",
              "stock buyback", "office move", "leadership change")


@frame("temporal_order", "train")
def t_preceded(c: Ctx):
    co = c.pick("companies")
    e1, e2 = c.sample(BIZ_EVENTS, 2)
    v, conv = c.ch([("preceded", "came after"), ("followed", "came before")])
    anchor = f"At {co.sg}, the {e1} {v} the {e2}."
    if c.coin(0.35):
        neg = f"At {co.sg}, the {e2} {v} the {e1}."
    else:
        neg = f"At {co.sg}, the {e1} {'followed' if v == 'preceded' else 'preceded'} the {e2}."
    pos = [f"At {co.sg}, the {e2} {conv} the {e1}.", f"At {co.sg}, the {e2} was {v} by the {e1}."]
    return anchor, pos, neg


@frame("temporal_order", "train")
def t_take_meds(c: Ctx):
    drug = c.pick("drugs")
    n = c.ch(["thirty minutes", "an hour", "two hours", "fifteen minutes"])
    meal = c.ch(["meals", "breakfast", "exercise", "eating", "your evening meal"])
    conn, opp = rel_pair(c, [BA])
    anchor = f"Take {drug.sg} {n} {conn} {meal}."
    neg = f"Take {drug.sg} {n} {opp} {meal}."
    pos = [f"{drug.sg} should be taken {n} {conn} {meal}."]
    return anchor, pos, neg


DEV_STEPS = ("run the linter", "merge the branch", "tag the release", "deploy to production", "update the changelog",
             "back up the database", "rebase your branch", "open a pull request")


@frame("temporal_order", "train")
def t_dev(c: Ctx):
    a1, a2 = c.sample(DEV_STEPS, 2)
    conn, opp = rel_pair(c, [BA])
    anchor = f"{a1} {conn} you {a2}."
    neg = f"{a1} {opp} you {a2}."
    pos = [f"{conn} you {a2}, {a1}.", f"You should {a1} {conn} you {a2}."]
    return anchor, pos, neg


LAWS = ("new tax law", "rent cap", "smoking ban", "lower speed limit", "data protection rule", "minimum wage increase")
POLITICAL = ("election", "referendum", "court ruling", "parliamentary vote", "public consultation")


@frame("temporal_order", "train")
def t_law(c: Ctx):
    law = c.ch(LAWS)
    ev = c.ch(POLITICAL)
    n = c.ch(["two weeks", "a month", "three days", "six months", "a year"])
    conn, opp = rel_pair(c, [BA])
    tail = c.ch(["", " according to the official gazette",
                 ", as the opposition pointed out repeatedly during the long debate in parliament"])
    anchor = f"The {law} took effect {n} {conn} the {ev}{tail}."
    neg = f"The {law} took effect {n} {opp} the {ev}{tail}."
    pos = [f"The {ev} took place {n} {opp} the {law} took effect{tail}."]
    return anchor, pos, neg


@frame("temporal_order", "train")
def t_ferry(c: Ctx):
    a, b = c.pick("transport", 2)
    n = c.ch(["an hour", "half an hour", "twenty minutes", "two hours"])
    conn, opp = rel_pair(c, [BA])
    anchor = f"Our {a.sg} leaves {n} {conn} the last {b.sg} arrives."
    neg = f"Our {a.sg} leaves {n} {opp} the last {b.sg} arrives."
    pos = [f"The last {b.sg} arrives {n} {opp} our {a.sg} leaves."]
    return anchor, pos, neg


HABITS = (
    ("reads the news", "has breakfast", "reading the news", "having breakfast"),
    ("feeds the chickens", "goes to work", "feeding the chickens", "going to work"),
    ("does the dishes", "watches television", "doing the dishes", "watching television"),
    ("checks the mail", "makes dinner", "checking the mail", "making dinner"),
    ("stretches", "goes for a swim", "stretching", "going for a swim"),
    ("practices the piano", "does homework", "practicing the piano", "doing homework"),
    ("calls home", "goes to bed", "calling home", "going to bed"),
)


@frame("temporal_order", "train")
def t_habits(c: Ctx):
    n = c.pick("names")
    s1, s2, g1, g2 = c.ch(HABITS)
    if c.coin():
        s1, s2, g1, g2 = s2, s1, g2, g1
    conn, opp = rel_pair(c, [BA])
    adv = c.ch(["always", "usually", "normally"])
    anchor = f"{n.sg} {adv} {s1} {conn} {g2}."
    neg = f"{n.sg} {adv} {s1} {opp} {g2}."
    pos = [f"{n.sg} {adv} {s2} {opp} {g1}.", f"{cap(conn)} {g2}, {n.sg} {adv} {s1}."]
    return anchor, pos, neg


# ===========================================================================
# driver
# ===========================================================================


def _norm_key(s: str) -> str:
    return " ".join(tokens(s))


def _ok(category: str, anchor: str, positive: str, negative: str) -> bool:
    ta, tp, tn = tokens(anchor), tokens(positive), tokens(negative)
    if not (MIN_WORDS <= len(ta) <= MAX_WORDS):
        return False
    if len({_norm_key(anchor), _norm_key(positive), _norm_key(negative)}) != 3:
        return False
    if category in ("role_swap", "attribute_binding") and sorted(ta) != sorted(tn):
        return False
    return True


def _generate_cell(seed: int, split: str, category: str, count: int, seen_anchors: set[str]) -> list[dict]:
    frames = FRAMES[(category, split)]
    rng = random.Random(seed * 1000 + SPLITS.index(split) * 100 + CATEGORIES.index(category))
    ctx = Ctx(rng, split)
    rows: list[dict] = []
    pairs: set[tuple[str, str]] = set()
    for i in range(count):
        for attempt in range(400):
            fr = frames[(i + attempt // 50) % len(frames)]
            anchor, positives, negative = fr(ctx)
            anchor, negative = finish(anchor), finish(negative)
            cands = [finish(p) for p in positives]
            cands = [p for p in cands if _norm_key(p) not in (_norm_key(anchor), _norm_key(negative))]
            if not cands:
                continue
            positive = rng.choice(cands)
            key = _norm_key(anchor)
            if key in seen_anchors or (key, _norm_key(negative)) in pairs:
                continue
            if not _ok(category, anchor, positive, negative):
                continue
            seen_anchors.add(key)
            pairs.add((key, _norm_key(negative)))
            rows.append({
                "id": f"nm-{split}-{category}-{i + 1:04d}",
                "category": category,
                "split": split,
                "anchor": anchor,
                "positive": positive,
                "negative": negative,
            })
            break
        else:  # pragma: no cover - would indicate an exhausted frame set
            raise RuntimeError(f"could not fill {split}/{category} item {i + 1}")
    return rows


def generate(seed: int = DEFAULT_SEED) -> list[dict]:
    """All triplets, sorted by (split, category, id)."""
    rows: list[dict] = []
    seen: set[str] = set()
    for split in SPLITS:
        for category in CATEGORIES:
            rows.extend(_generate_cell(seed, split, category, COUNTS[split], seen))
    rows.sort(key=lambda r: (r["split"], r["category"], r["id"]))
    return rows


def dumps(rows: list[dict]) -> str:
    return "".join(json.dumps({k: r[k] for k in KEYS}, ensure_ascii=False) + "\n" for r in rows)


def write(path: Path, seed: int = DEFAULT_SEED) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(dumps(generate(seed)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m suites.nearmiss.generate", description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name(f"nearmiss-v{VERSION}.jsonl"))
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = ap.parse_args(argv)
    write(args.out, args.seed)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
