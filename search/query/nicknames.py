"""English nicknames of other letters than their given name's ('Bob' is Robert, 'Peggy' Margaret), so that an author
asked for as 'Bob Smith' finds Robert Smith (search.query.authors, beside the surname only). A nickname that begins
its name ('Ben' of Benjamin, 'Alex' of Alexander) needs no entry: a short form beside the surname is matched by its
letters already.

A few dozen pairs only, chosen by hand: the best-known English hypocorisms of other letters (as Wikipedia's
"Hypocorism" gives English ones: Bob, Bill, Peggy …), most of them among the many that carltonnorthern/nicknames'
names.csv relates (Apache-2.0, https://github.com/carltonnorthern/nicknames, on PyPI as `nicknames`). Not that
package: its table relates a name to any it may stand for, 'bill' and 'billy' to Robert beside William, 'al' to over
a dozen names, and here each guess is a person the user did not ask for.
"""
from __future__ import annotations

# nickname -> the given names it stands for, as keyword search folds them (small letters, no accents)
LONG_FORMS: dict[str, tuple[str, ...]] = {
    "bob": ("robert",), "bobby": ("robert",), "robbie": ("robert",), "bert": ("albert", "herbert"),
    "bill": ("william",), "billy": ("william",), "willy": ("william",),
    "dick": ("richard",), "rick": ("richard",), "ricky": ("richard",),
    "jim": ("james",), "jimmy": ("james",), "jamie": ("james",), "jack": ("john",), "johnny": ("john",),
    "mike": ("michael",), "mick": ("michael",), "mickey": ("michael",),
    "ted": ("edward", "theodore"), "ned": ("edward",), "eddie": ("edward",), "teddy": ("edward", "theodore"),
    "tony": ("anthony", "antony"), "chuck": ("charles",), "charlie": ("charles",),
    "harry": ("henry", "harold"), "hank": ("henry",), "hal": ("henry", "harold"),
    "larry": ("lawrence", "laurence"), "terry": ("terence",), "jerry": ("gerald", "jerome"),
    "steve": ("stephen", "steven"), "andy": ("andrew",), "drew": ("andrew",), "joe": ("joseph",),
    "joey": ("joseph",), "tom": ("thomas",), "tommy": ("thomas",), "dave": ("david",), "nick": ("nicholas",),
    "kit": ("christopher",), "jake": ("jacob",), "gus": ("augustus",),
    "sandy": ("alexander", "alexandra"), "sasha": ("alexander", "alexandra"),
    "liz": ("elizabeth",), "lizzie": ("elizabeth",), "beth": ("elizabeth",), "betty": ("elizabeth",),
    "bess": ("elizabeth",), "libby": ("elizabeth",),
    "kate": ("katherine", "catherine", "kathryn"), "katie": ("katherine", "catherine", "kathryn"),
    "kathy": ("katherine", "kathryn"), "cathy": ("catherine",),
    "peggy": ("margaret",), "peg": ("margaret",), "maggie": ("margaret",), "meg": ("margaret",),
    "polly": ("mary",), "molly": ("mary",), "sally": ("sarah",), "sadie": ("sarah",),
    "patty": ("patricia",), "trish": ("patricia",), "sue": ("susan", "suzanne"), "susie": ("susan",),
    "nancy": ("ann", "anne"), "annie": ("ann", "anne", "anna"), "jenny": ("jennifer",), "becky": ("rebecca",),
    "nell": ("eleanor", "helen"), "ellie": ("eleanor",), "abby": ("abigail",), "dot": ("dorothy",),
    "dolly": ("dorothy",), "vicky": ("victoria",),
}


def short_forms(given: str) -> tuple[str, ...]:
    """The nicknames of the given name ``given`` ('robert': bob, bobby, robbie), folded; () for none here: 'Robert
    Smith' asked for finds the note whose author is recorded as 'Bob Smith'."""
    return SHORT_FORMS.get(given, ())


def long_forms(nickname: str) -> tuple[str, ...]:
    """The given names ``nickname`` stands for ('bob': robert), folded; () for a word that is no nickname here."""
    return LONG_FORMS.get(nickname, ())


# given name -> its nicknames here, the table read backwards
SHORT_FORMS: dict[str, tuple[str, ...]] = {}
for _nickname, _names in LONG_FORMS.items():
    for _name in _names:
        SHORT_FORMS[_name] = SHORT_FORMS.get(_name, ()) + (_nickname,)
