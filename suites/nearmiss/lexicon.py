"""Slot lexicons, word forms and category vocabularies for the near-miss suite.

Everything here is plain data plus a few deterministic word-form helpers.

Slot pools
----------
``POOLS`` maps a pool name to a tuple of entries.  Every pool is split into two
disjoint halves: entries at even positions belong to the ``test`` split, entries
at odd positions to the ``train`` split (see :func:`pool`).  Frames only ever
draw slot fillers through :func:`pool`, so a train item can never reuse a test
slot filler.  No entry occurs in two pools (checked by the tests).

Entry syntax
------------
* noun pools:  ``"singular[/plural][=synonym[/synonym-plural]]"``; the synonym
  is a vetted true synonym used in positives only (``"physician=doctor"``).
* proper-noun pools (names, companies, clubs): the bare string.
* verb pools:  ``"base[|past[|participle]][=synonym-verb]"``; regular forms are
  derived.  A multi-word verb inflects its first word (``"slow down"``).
* adjective pools: ``"word[=synonym]"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# ---------------------------------------------------------------------------
# word-form helpers
# ---------------------------------------------------------------------------

_A_EXCEPTIONS = ("uni", "use", "usu", "eu", "one", "ur")  # vowel letter, consonant sound
_AN_EXCEPTIONS = ("hour", "honest", "heir", "honor")  # consonant letter, vowel sound


def article(word: str) -> str:
    """Indefinite article for ``word`` ("a"/"an")."""
    w = word.lower()
    if w.startswith(_AN_EXCEPTIONS):
        return "an"
    if w.startswith(_A_EXCEPTIONS):
        return "a"
    if w[:1].isdigit():
        return "an" if w.startswith(("8", "11", "18")) else "a"
    return "an" if w[:1] in "aeiou" else "a"


def with_article(phrase: str) -> str:
    return f"{article(phrase)} {phrase}"


def _pluralize_word(w: str) -> str:
    if w.endswith(("s", "x", "z", "ch", "sh")):
        return w + "es"
    if w.endswith("y") and w[-2:-1] not in tuple("aeiou"):
        return w[:-1] + "ies"
    return w + "s"


def pluralize(phrase: str) -> str:
    head, _, last = phrase.rpartition(" ")
    return (head + " " if head else "") + _pluralize_word(last)


def _third_person_word(w: str) -> str:
    if w in ("have",):
        return "has"
    if w.endswith(("s", "x", "z", "ch", "sh", "o")):
        return w + "es"
    if w.endswith("y") and w[-2:-1] not in tuple("aeiou"):
        return w[:-1] + "ies"
    return w + "s"


def _past_word(w: str) -> str:
    if w.endswith("e"):
        return w + "d"
    if w.endswith("y") and w[-2:-1] not in tuple("aeiou"):
        return w[:-1] + "ied"
    return w + "ed"


def _gerund_word(w: str) -> str:
    if w.endswith("ie"):
        return w[:-2] + "ying"
    if w.endswith("e") and not w.endswith(("ee", "ye", "oe")):
        return w[:-1] + "ing"
    return w + "ing"


def _inflect_first(phrase: str, fn) -> str:
    first, sep, rest = phrase.partition(" ")
    return fn(first) + sep + rest


# ---------------------------------------------------------------------------
# lexical item types
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Noun:
    sg: str
    pl: str
    proper: bool = False
    syn_sg: str | None = None
    syn_pl: str | None = None

    @property
    def the(self) -> str:
        return self.sg if self.proper else f"the {self.sg}"

    @property
    def a(self) -> str:
        return self.sg if self.proper else with_article(self.sg)

    @property
    def thepl(self) -> str:
        return self.pl if self.proper else f"the {self.pl}"

    @property
    def syn(self) -> "Noun":
        if self.syn_sg is None:
            return self
        return Noun(self.syn_sg, self.syn_pl or pluralize(self.syn_sg), self.proper)

    def forms(self) -> tuple[str, ...]:
        return (self.sg, self.pl) if self.pl != self.sg else (self.sg,)

    def syn_forms(self) -> tuple[str, ...]:
        s = self.syn
        return (s.sg, s.pl) if s.pl != s.sg else (s.sg,)


@dataclass(frozen=True)
class Verb:
    base: str
    past: str
    pp: str
    syn_spec: str | None = None

    @property
    def s(self) -> str:
        return _inflect_first(self.base, _third_person_word)

    @property
    def ing(self) -> str:
        return _inflect_first(self.base, _gerund_word)

    @property
    def syn(self) -> "Verb":
        return parse_verb(self.syn_spec) if self.syn_spec else self

    def pres(self, plural: bool) -> str:
        return self.base if plural else self.s


@dataclass(frozen=True)
class Adj:
    word: str
    syn_word: str | None = None

    @property
    def syn(self) -> str:
        return self.syn_word or self.word

    def __str__(self) -> str:  # pragma: no cover - convenience
        return self.word


def parse_noun(spec: str, proper: bool = False) -> Noun:
    if proper:
        return Noun(spec, spec, True)
    main, _, syn = spec.partition("=")
    sg, _, pl = main.partition("/")
    syn_sg, syn_pl = (None, None)
    if syn:
        syn_sg, _, syn_pl = syn.partition("/")
        syn_pl = syn_pl or pluralize(syn_sg)
    return Noun(sg, pl or pluralize(sg), False, syn_sg, syn_pl)


def parse_verb(spec: str) -> Verb:
    main, _, syn = spec.partition("=")
    parts = main.split("|")
    base = parts[0]
    past = parts[1] if len(parts) > 1 else _inflect_first(base, _past_word)
    pp = parts[2] if len(parts) > 2 else past
    if len(parts) > 1 and " " in base and " " not in past:
        rest = base.partition(" ")[2]
        past, pp = f"{past} {rest}", f"{pp} {rest}"
    return Verb(base, past, pp, syn or None)


def parse_adj(spec: str) -> Adj:
    word, _, syn = spec.partition("=")
    return Adj(word, syn or None)


# ---------------------------------------------------------------------------
# pools
# ---------------------------------------------------------------------------

NOUN_POOLS: dict[str, tuple[str, ...]] = {
    # people -----------------------------------------------------------------
    "office_roles": (
        "manager", "accountant", "attorney=lawyer", "consultant", "receptionist",
        "intern", "auditor", "architect", "engineer", "designer", "editor",
        "reporter=journalist", "translator", "recruiter", "supervisor", "analyst",
        "assistant", "director", "librarian", "programmer", "spokesperson",
        "chairman=chairperson", "treasurer", "secretary",
    ),
    "med_roles": (
        "surgeon", "nurse", "cardiologist", "neurologist", "radiologist",
        "pharmacist", "paramedic", "midwife", "anesthetist", "dermatologist",
        "pediatrician", "oncologist", "therapist", "physician=doctor",
        "psychiatrist", "dentist", "matron", "lab technician",
    ),
    "trade_roles": (
        "plumber", "electrician", "landlord", "tenant", "contractor", "gardener",
        "painter", "mechanic", "roofer", "carpenter", "decorator", "locksmith",
        "caterer", "florist", "builder", "cleaner",
    ),
    "legal_roles": (
        "prosecutor", "defendant", "judge", "witness", "plaintiff", "juror",
        "bailiff", "clerk", "detective", "solicitor", "notary", "mediator",
    ),
    "person_nouns": (
        "woman/women", "man/men", "girl", "boy", "tourist", "guest", "neighbor",
        "traveler", "customer", "passenger", "visitor", "stranger", "cyclist",
        "runner", "shopper", "driver", "student", "teacher", "waiter", "cashier",
    ),
    "players": (
        "striker", "winger", "goalkeeper", "defender", "midfielder", "captain",
        "substitute", "centre-forward", "full-back", "playmaker",
    ),
    "animals": (
        "dog", "cat", "fox", "goose/geese", "horse", "goat", "squirrel", "rabbit",
        "crow", "hawk", "owl", "mouse/mice", "rat", "deer/deer", "bear", "wolf/wolves",
        "duck", "swan", "seagull=gull", "pigeon", "badger", "raccoon",
    ),
    # things -----------------------------------------------------------------
    "vehicles": (
        "car", "van", "truck=lorry", "bicycle=bike", "scooter", "motorcycle=motorbike",
        "jeep", "taxi=cab", "pickup", "minivan", "tractor", "camper",
    ),
    "buildings": (
        "house", "garage", "shed", "fence", "gate", "door", "barn", "cottage",
        "mailbox", "kiosk", "church", "cabin",
    ),
    "dishes": (
        "soup", "salad", "stew", "bread", "sauce", "pasta", "curry", "risotto",
        "omelet", "pie", "noodle dish", "tart", "dip", "dressing", "chili", "flatbread",
        "casserole", "broth", "chowder", "pudding",
    ),
    "loads": (
        "beam", "roof", "gantry", "balcony", "platform", "canopy", "walkway", "floor slab",
        "water tank", "staircase", "mezzanine", "roof truss",
    ),
    "supports": (
        "column", "wall", "pillar", "joist", "pier", "bracket", "foundation", "girder",
        "trestle", "strut", "plinth", "buttress",
    ),
    "devices": (
        "laptop", "phone", "e-reader", "monitor", "keyboard", "charger", "printer",
        "router", "speaker", "camera", "headset", "projector",
    ),
    "clothes": (
        "shirt", "jacket", "scarf", "coat", "hat", "sweater=jumper", "dress", "skirt",
        "tie", "cardigan", "raincoat", "blouse",
    ),
    "trousers": (
        "trousers/trousers", "shorts/shorts", "jeans/jeans", "socks/socks",
        "boots/boots", "sneakers/sneakers", "gloves/gloves", "sandals/sandals",
    ),
    "furniture": (
        "sofa=couch", "bookshelf/bookshelves", "desk", "bed", "cabinet", "table",
        "armchair", "wardrobe", "dresser", "bench", "sideboard", "chest of drawers/chests of drawers",
    ),
    "home_objects": (
        "lamp", "vase", "plant", "printer stand", "fan", "speaker stand", "hat stand",
        "umbrella stand", "floor lamp", "globe", "laundry basket", "piano", "dog basket",
        "ironing board",
    ),
    "wall_items": (
        "mirror", "painting", "clock", "photo frame", "calendar", "poster", "whiteboard",
        "television", "bulletin board", "wall shelf", "tapestry", "map of the city",
    ),
    "containers": (
        "box", "drawer", "bag", "glovebox", "basket", "toolbox", "cupboard", "suitcase",
        "backpack", "strongbox", "crate", "tin",
    ),
    "small_items": (
        "keys/keys", "passport", "wallet", "charger cable", "glasses/glasses",
        "receipt", "tickets/tickets", "notebook", "wristwatch", "remote", "spare battery",
        "earrings/earrings", "headphones/headphones", "sunglasses/sunglasses",
        "library card", "key fob",
    ),
    "organs": (
        "liver", "kidney", "bladder", "spleen", "stomach", "pancreas", "heart",
        "collarbone", "diaphragm", "navel", "gallbladder", "lung",
    ),
    "ui_buttons": (
        "save button", "cancel button", "submit button", "delete button", "help button",
        "download button", "share button", "print button", "undo button", "edit button",
        "refresh button", "settings button",
    ),
    "landmarks": (
        "the village", "the airport", "the old harbor", "the campsite",
        "the ski resort", "the train station", "the river", "the lake",
        "the highway", "the city center", "the castle", "the stadium",
        "the factory", "the university", "the reservoir", "the market square",
        "the lighthouse", "the ferry terminal", "the national park", "the marina",
    ),
    "services": (
        "billing", "search", "auth", "payments", "notification", "inventory",
        "reporting", "metrics", "checkout", "profile", "logging", "messaging",
        "scheduler", "gateway", "storage", "recommendation", "pricing", "shipping",
        "upload", "ledger",
    ),
    "amenities": (
        "pharmacy", "bakery", "bank", "supermarket", "cafe=coffee shop", "gym",
        "parcel shop", "hotel", "bus stop", "petrol station=gas station",
        "playground", "library", "dental clinic", "cinema=movie theater",
        "laundromat", "bookshop=bookstore",
    ),
    "transport": (
        "commuter train", "coach", "ferry", "night bus", "high-speed train", "express coach",
        "overnight train", "airport shuttle", "tram", "minibus", "hydrofoil", "shuttle bus",
    ),
    "assets": (
        "stocks", "bonds", "gold", "real estate", "cash", "commodities",
        "index funds", "savings accounts", "treasury bills", "tech shares",
        "silver", "cryptocurrencies",
    ),
    "drugs": (
        "ibuprofen", "aspirin", "paracetamol", "naproxen", "metformin",
        "amoxicillin", "cetirizine", "warfarin", "codeine", "prednisone",
        "lisinopril", "omeprazole",
    ),
    "languages": (
        "Rust", "Python", "Go", "Java", "C", "Ruby", "Kotlin", "Haskell",
        "Swift", "Elixir", "Scala", "PHP",
    ),
    "streets": (
        "Oak Street", "Mill Road", "Station Road", "Elm Avenue", "Park Lane",
        "Church Street", "Harbor Road", "Queen Street", "Bridge Street",
        "Maple Avenue", "High Street", "Grove Road",
    ),
    "cities": (
        "Lisbon", "Oslo", "Kyoto", "Nairobi", "Lima", "Prague", "Hanoi", "Seville",
        "Montreal", "Cairo", "Krakow", "Melbourne", "Bogota", "Reykjavik",
        "Marrakesh", "Tallinn", "Cape Town", "Edinburgh", "Santiago", "Istanbul",
    ),
    "ingredients": (
        "butter", "garlic", "onions/onions", "spinach", "cream", "lemon juice",
        "sugar", "chili flakes/chili flakes", "mushrooms/mushrooms", "basil",
        "parmesan", "yogurt", "honey", "ginger", "herbs/herbs", "tomatoes/tomatoes",
    ),
    "allergens": (
        "penicillin", "latex", "peanuts", "shellfish", "pollen", "iodine",
        "dust mites", "sulfa drugs", "bee stings", "eggs",
    ),
    "software": (
        "the new release", "the mobile app", "the desktop client", "the web portal",
        "the latest patch", "the browser extension", "the command-line tool",
        "the admin dashboard", "the beta build", "the plugin",
    ),
    "bugs": (
        "login", "caching", "memory", "sync", "printing", "autosave", "rendering",
        "scrolling", "timezone", "pagination",
    ),
    "documents": (
        "expense report", "invoice", "budget", "purchase order", "travel request",
        "contract", "proposal", "timesheet", "grant application", "press release",
        "audit plan", "hiring plan",
    ),
    "fees": (
        "international transfers", "cash withdrawals", "paper statements",
        "card replacements", "overdrafts", "early repayment", "currency exchange",
        "account closure", "wire transfers", "late payments",
    ),
    "structures_infra": (
        "old bridge", "new ramp", "footbridge", "parking deck", "pier", "dam",
        "overpass", "viaduct", "tunnel", "causeway",
    ),
    "schedules": (
        "surgery", "scan", "biopsy", "colonoscopy", "blood test", "endoscopy",
        "operation", "MRI", "procedure", "injection",
    ),
    "cafe_items": (
        "coffee", "sandwich", "tea", "wrap", "smoothie", "pastry",
        "lemonade", "bagel", "milkshake", "toastie", "cider", "muffin",
    ),
    "lodgings": (
        "hostel", "guesthouse", "villa", "restaurant", "apartment block", "boutique hotel",
        "B&B", "seafront diner", "holiday flat", "beach bar", "bistro", "lodge",
    ),
    "views": (
        "harbor", "beach", "square", "market", "promenade", "old town", "bay", "boardwalk",
        "vineyard", "fishing port", "lagoon", "canal",
    ),
    "firms": (
        "startup", "rival", "lender", "retailer", "supplier", "insurer", "airline",
        "publisher", "brewery", "carmaker", "chipmaker", "wholesaler",
    ),
    "shapes": (
        "sphere", "cube", "cylinder", "cone", "disk", "block", "pendulum", "marble",
        "prism", "puck",
    ),
    "symptoms": (
        "fever", "cough", "rash", "headache", "sprained ankle", "sore throat",
        "back pain", "ear infection", "burn", "migraine",
    ),
    "groups": (
        "placebo group", "control group", "treatment group", "high-dose group",
        "low-dose group", "older cohort", "younger cohort", "exercise group",
        "diet group", "standard-care group", "early-start group", "late-start group",
        "day-shift cohort", "night-shift cohort", "vaccinated group", "home-care group",
    ),
    "frames_engineering": (
        "aluminum frame", "steel frame", "carbon frame", "titanium frame",
        "timber frame", "magnesium frame", "bamboo frame", "chromoly frame",
    ),
}

PROPER_POOLS: dict[str, tuple[str, ...]] = {
    "names": (
        "Maria", "Tom", "Priya", "Daniel", "Aisha", "Kenji", "Laura", "Omar",
        "Sofia", "Lucas", "Hannah", "Mateo", "Chloe", "Ravi", "Elena", "Samuel",
        "Nadia", "Victor", "Grace", "Ibrahim", "Julia", "Marcus", "Leila", "Oscar",
        "Ana", "Felix", "Mei", "Hugo", "Zara", "Adrian", "Ines", "Peter", "Yara",
        "Noah", "Clara", "Diego", "Emma", "Jonas", "Fatima", "Theo", "Nina", "Paulo",
        "Rosa", "Tariq", "Lena", "Arjun", "Ingrid", "Kwame",
    ),
    "companies": (
        "Northwind", "Bluepeak", "Corvex", "Helio Systems", "Tandem Labs",
        "Apex Freight", "Quarry Bank", "Meridian Foods", "Solent Energy",
        "Vireo Health", "Lumen Analytics", "Brightwater", "Orbitek", "Kestrel Motors",
        "Granite Insurance", "Pinecrest Media", "Halden Steel", "Novara Pharma",
        "Ironleaf", "Cobalt Retail", "Saltmarsh Logistics", "Verdant Farms",
        "Copperline", "Tessellate",
    ),
    "clubs": (
        "Riverside", "Northgate", "Eastbrook", "Millford", "Westport", "Kingsbury",
        "Ashford", "Oakham", "Redhill", "Bramley", "Carlow", "Dunmore", "Fairview",
        "Glenwood", "Hollins", "Linton",
    ),
}

VERB_POOLS: dict[str, tuple[str, ...]] = {
    "people_verbs": (
        "criticize", "thank", "praise=commend", "warn", "phone=call", "interview",
        "email", "contact", "blame", "recommend", "invite", "congratulate",
        "question", "interrupt|interrupted", "correct", "replace", "help=assist",
        "ignore", "visit", "reassure", "confront", "notify=inform", "mislead|misled|misled",
        "overrule",
    ),
    "med_verbs": (
        "consult", "page", "relieve", "supervise=oversee|oversaw|overseen", "brief",
        "train", "cover for|covered|covered", "shadow", "mentor", "alert", "summon",
        "teach|taught|taught",
    ),
    "animal_verbs": (
        "chase", "follow", "bite|bit|bitten", "scare=frighten", "attack", "watch",
        "stalk", "sniff", "nip|nipped", "startle", "corner", "nudge",
    ),
    "service_verbs": (
        "call", "query", "authenticate", "monitor", "invoke", "poll", "ping", "throttle",
        "update", "validate", "restart", "block",
    ),
    "people_adj_verbs": (
        "greet", "photograph", "approach", "wave to|waved|waved", "hug", "guide",
        "recognize", "spot|spotted", "comfort", "escort", "direct",
        "overtake|overtook|overtaken",
    ),
    "approve_verbs": (
        "approve", "sign", "review", "reject", "submit|submitted", "file", "check", "process",
        "forward", "revise", "audit", "archive",
    ),
    "fix_verbs": (
        "fix", "affect", "address", "introduce", "cause", "resolve=fix",
        "expose", "trigger", "work around|worked around", "mask",
    ),
    "fee_verbs": (
        "charge", "waive", "refund", "list", "apply", "disclose", "cap|capped", "increase",
    ),
}

ADJ_POOLS: dict[str, tuple[str, ...]] = {
    "colors": (
        "red", "blue", "green", "yellow", "black", "white", "brown", "purple",
        "pink", "orange", "silver", "beige", "gray", "navy", "maroon", "turquoise",
    ),
    "person_adjs": (
        "tall", "short", "young", "elderly", "bearded", "nervous", "calm",
        "cheerful", "quiet", "talkative", "tired", "smiling", "angry", "shy",
        "confident", "friendly", "worried", "relaxed", "curious", "impatient",
    ),
    "dish_adjs": (
        "spicy", "mild", "sweet", "salty", "crispy", "creamy", "smoky", "tangy",
        "warm", "chilled", "sour", "rich", "bland", "fresh", "bitter", "lemony",
    ),
    "materials": (
        "steel", "glass", "concrete", "aluminum", "wooden", "copper", "brick",
        "plastic", "stone", "granite", "timber", "bamboo", "iron", "marble",
    ),
    "device_adjs": (
        "new", "old", "cheap", "expensive", "refurbished", "broken", "faulty",
        "spare", "used", "borrowed", "slow", "fast",
    ),
    "pro_adjs": (
        "experienced", "inexperienced", "senior", "junior", "retired", "visiting",
        "overworked", "cautious", "ambitious", "patient", "stern", "soft-spoken",
    ),
    "patterns": (
        "striped", "plain", "checked", "spotted", "floral", "woolen", "denim",
        "leather", "linen", "silk", "tartan", "velvet",
    ),
    "temps": (
        "hot", "cold", "large", "small", "vegan", "homemade", "sugar-free",
        "lukewarm", "extra-large", "gluten-free", "organic", "half-price",
    ),
    "place_adjs": (
        "sleepy", "busy", "crowded", "empty", "modern", "old-fashioned", "tiny",
        "huge", "noisy", "peaceful", "shabby", "elegant",
    ),
    "firm_adjs": (
        "struggling", "profitable", "regional", "national", "fast-growing", "established",
        "local", "global", "family-owned", "listed", "debt-laden", "debt-free",
    ),
    "sizes": (
        "heavy", "light", "hollow", "solid", "polished", "dented", "rusty", "painted",
        "magnetic", "smooth", "rough", "spinning",
    ),
    "severity": (
        "severe", "minor", "serious", "slight", "sudden", "lingering", "persistent",
        "recent", "chronic", "acute", "painful", "recurring",
    ),
    "finishes": (
        "oak", "pine", "walnut", "metal", "wicker", "rattan", "teak", "cherry", "birch",
        "chrome", "lacquered", "mahogany",
    ),
    "player_adjs": (
        "veteran", "teenage", "injured", "exhausted", "seasoned", "towering", "quick",
        "suspended", "fit", "on-loan", "home-grown", "left-footed",
    ),
}

# pools whose adjectives share one article class for a swap do not need a check;
# the generator verifies the word multiset of every attribute/role negative.

POOL_KINDS = {
    **{k: "noun" for k in NOUN_POOLS},
    **{k: "proper" for k in PROPER_POOLS},
    **{k: "verb" for k in VERB_POOLS},
    **{k: "adj" for k in ADJ_POOLS},
}

SPLITS = ("test", "train")


def _raw(name: str) -> tuple[str, ...]:
    for table in (NOUN_POOLS, PROPER_POOLS, VERB_POOLS, ADJ_POOLS):
        if name in table:
            return table[name]
    raise KeyError(name)


def raw_half(name: str, split: str) -> tuple[str, ...]:
    """The raw entries of pool ``name`` that belong to ``split``."""
    entries = _raw(name)
    return entries[0::2] if split == "test" else entries[1::2]


@lru_cache(maxsize=None)
def pool(name: str, split: str) -> tuple:
    """Parsed items of pool ``name`` for ``split`` (disjoint halves)."""
    kind = POOL_KINDS[name]
    half = raw_half(name, split)
    if kind == "noun":
        return tuple(parse_noun(s) for s in half)
    if kind == "proper":
        return tuple(parse_noun(s, proper=True) for s in half)
    if kind == "verb":
        return tuple(parse_verb(s) for s in half)
    return tuple(parse_adj(s) for s in half)


def all_nouns() -> list[Noun]:
    """Every noun and proper noun of every pool, both splits (for audits)."""
    out: list[Noun] = []
    for name in list(NOUN_POOLS) + list(PROPER_POOLS):
        for split in SPLITS:
            out.extend(pool(name, split))
    return out


def entry_keys(split: str) -> set[tuple[str, str]]:
    """(kind, primary form) of every entry of ``split``; nouns/names share a kind."""
    out: set[tuple[str, str]] = set()
    for name, kind in POOL_KINDS.items():
        k = "noun" if kind in ("noun", "proper") else kind
        for item in pool(name, split):
            key = item.sg if isinstance(item, Noun) else item.base if isinstance(item, Verb) else item.word
            out.add((k, key.lower()))
    return out


# ---------------------------------------------------------------------------
# category vocabularies (used by the audits in the tests)
# ---------------------------------------------------------------------------

TOKEN_RE = re.compile(r"[a-z0-9]+(?:['\-][a-z0-9]+)*")


def tokens(text: str) -> list[str]:
    return TOKEN_RE.findall(text.lower())


NEGATION_TOKENS = frozenset({"not", "never", "no"})
# determiners that may alternate with "no" ("There is a pharmacy" / "There is no pharmacy")
NO_ALTERNANTS = frozenset({"a", "an", "some", "any"})
DO_AUX = frozenset({"do", "does", "did"})

NUMBER_WORDS = (
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "fifteen", "twenty", "thirty", "forty", "fifty", "sixty",
)
QUANTIFIERS = (
    "all", "some", "most", "few", "many", "none", "several", "every", "no",
    "half", "both", "each", "twice", "three", "times", "doubled", "tripled",
    "halved", "quadrupled",
)
QUANTITY_VOCAB = frozenset(NUMBER_WORDS) | frozenset(QUANTIFIERS)

SPATIAL_VOCAB = frozenset({
    "left", "right", "to", "of", "above", "below", "in", "on", "front", "behind",
    "top", "bottom", "underneath", "beneath", "inside", "outside", "north", "south",
    "east", "west", "over", "under", "upstairs", "downstairs", "near", "far", "from",
    "into", "out", "onto", "off", "ahead", "upper", "lower",
})

COMPARATIVE_PAIRS = (
    ("faster", "slower"), ("faster", "more slowly"), ("more", "less"), ("more", "fewer"),
    ("higher", "lower"), ("heavier", "lighter"), ("older", "younger"), ("larger", "smaller"),
    ("better", "worse"), ("stronger", "weaker"), ("warmer", "colder"), ("longer", "shorter"),
    ("cheaper", "pricier"), ("spicier", "milder"), ("sweeter", "saltier"), ("thicker", "thinner"),
    ("richer", "lighter"), ("hotter", "cooler"), ("safer", "riskier"), ("quieter", "louder"),
    ("busier", "quieter"), ("brighter", "darker"), ("denser", "less dense"), ("stiffer", "softer"),
    ("stricter", "more lenient"), ("clearer", "vaguer"), ("earlier", "later"),
    ("outperformed", "underperformed"),
)
COMPARATIVE_VOCAB = frozenset(w for pair in COMPARATIVE_PAIRS for p in pair for w in p.split())

TEMPORAL_VOCAB = frozenset({
    "before", "after", "earlier", "later", "preceded", "followed", "prior", "to",
    "following", "first", "then", "until", "since", "once",
})


def _all_verbs() -> list[Verb]:
    out: list[Verb] = []
    for name in VERB_POOLS:
        for split in SPLITS:
            out.extend(pool(name, split))
    return out


# Extra verbs used with do-support in negation frames (not slot pools).
EXTRA_VERBS = (
    "support", "contain", "offer", "dissolve", "include", "require", "accept",
    "allow", "cover", "attend", "finish", "answer", "pass", "win|won", "agree",
    "close", "open", "ship", "ring|rang|rung", "work", "sleep|slept", "react",
    "need", "mention", "pay|paid", "sign",
)


def verb_forms() -> dict[str, dict[str, str]]:
    """first word of base -> {"do": base, "does": 3sg, "did": past} (first words only)."""
    table: dict[str, dict[str, str]] = {}
    verbs = _all_verbs() + [parse_verb(s) for s in EXTRA_VERBS]
    for v in verbs:
        first = v.base.split()[0]
        table.setdefault(first, {"do": first, "does": v.s.split()[0], "did": v.past.split()[0]})
    return table


VERB_FORMS = verb_forms()
