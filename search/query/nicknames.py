"""English nicknames of other letters than their given name's ('Bob' is Robert, 'Peggy' Margaret), so that an author
asked for as 'Bob Smith' finds Robert Smith (search.query.authors, beside the surname only). A nickname that begins
its name ('Ben' of Benjamin, 'Alex' of Alexander) needs no entry: a short form beside the surname is matched by its
letters already.

Some 130 English nicknames (164 pairs), chosen by hand: the best-known English hypocorisms of other letters (as Wikipedia's
"Hypocorism" gives English ones: Bob, Bill, Peggy …), 150 of the pairs among those carltonnorthern/nicknames'
names.csv relates (Apache-2.0, https://github.com/carltonnorthern/nicknames, on PyPI as `nicknames` 1.0.1). Not that
package itself: its 2,691 pairs relate a nickname to any name it may stand for (of its 1,384 nicknames, 557 to two
names or more, 'bert' to 18, 'al' to 14), 'bill' to Robert beside William, 'jack' to Jacqueline, 'day' to David,
'leah' to Ashley, 'dan' to Sheridan; and here each guess is a person the user did not ask for. Kept so: a nickname
stands for three names at most, and none is a given name the table lists (tests/test_authors_names.py). Beside them
13 Dutch and German names a person is called by instead of the given names a document records ('Jan', 'Henk', 'Kees'
of Johannes, Hendrik, Cornelis; 'Hans', 'Fritz'), as Dutch theses and papers record the full ones.
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
    # widened: names.csv (carltonnorthern/nicknames 1.0.1) lists each pair, chosen as the table above is
    "abe": ("abraham",), "archie": ("archibald",), "arnie": ("arnold",), "barney": ("bernard",),
    "bernie": ("bernard",), "becca": ("rebecca",), "cindy": ("cynthia", "lucinda"), "connie": ("constance",),
    "dottie": ("dorothy",), "fanny": ("frances",), "gabe": ("gabriel",), "gene": ("eugene",),
    "ginny": ("virginia",), "ginger": ("virginia",), "hattie": ("harriet",), "ike": ("isaac",),
    "iggy": ("ignatius",), "jeff": ("geoffrey",), "jackie": ("jacqueline",), "wendy": ("gwendolyn",),
    "lenny": ("leonard",), "manny": ("manuel", "emanuel"), "marty": ("martin",), "ollie": ("oliver", "olivia"),
    "bessie": ("elizabeth",), "debbie": ("deborah", "debra"), "frankie": ("frances", "francis"),
    "frank": ("francis",), "gerry": ("gerald", "geraldine"), "josie": ("josephine",), "lottie": ("charlotte",),
    "mandy": ("amanda", "miranda"), "missy": ("melissa",), "patsy": ("patricia",), "penny": ("penelope",),
    "tess": ("teresa", "theresa"), "tessa": ("teresa", "theresa"), "tilly": ("matilda",), "trudy": ("gertrude",),
    "winnie": ("winifred",), "chrissy": ("christine", "christina"), "freddie": ("frederick",),
    "nate": ("nathan", "nathaniel"), "reggie": ("reginald",), "rudy": ("rudolph",), "randy": ("randall", "randolph"),
    "wally": ("walter", "wallace"), "woody": ("woodrow",), "zeke": ("ezekiel",), "liza": ("elizabeth",),
    "trixie": ("beatrice", "beatrix"),
    "xander": ("alexander",),  # not in names.csv: its end, as 'drew' is Andrew's
    # Dutch and German names a person is called by (a Dutch 'roepnaam'), the official given names recorded in a
    # thesis's or a paper's metadata: 'Jan van den Berg' is Johannes Hendrikus Maria van den Berg
    "jan": ("johannes",), "hans": ("johannes", "johann"), "joop": ("johannes",), "henk": ("hendrik", "hendrikus"),
    "kees": ("cornelis",), "wim": ("willem", "wilhelmus"), "klaas": ("nicolaas",), "toon": ("antonius",),
    "koos": ("jacobus",), "sjaak": ("jacobus",), "heinz": ("heinrich",), "fritz": ("friedrich",),
    "sepp": ("josef", "joseph"),
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


# the given names a Dutch or German record writes in full (Latin forms, a man's 'Maria'), of which three or more may
# stand before 'van den': 'Johannes Hendrikus Maria van den Berg' is one person (search.query.authors._one_name)
DUTCH_GIVEN = frozenset(
    "johannes johann hendrik hendrikus cornelis cornelius willem wilhelmus nicolaas antonius jacobus petrus paulus "
    "gerardus theodorus adrianus franciscus hubertus bernardus martinus lambertus josephus aloysius maria marie "
    "johanna hendrika cornelia wilhelmina jacoba petronella catharina elisabeth geertruida christiaan".split())


# the names of the faith a Spanish given name takes after 'de' (Juan de Dios, María de Jesús, María de Lourdes): a
# lone 'de' before one is Spanish, a given name and two surnames after it, though the next word is a given name too
# ('Juan de Dios Martín López': Martin is; it was read as Juan de Dios and Martín López, two persons)
SPANISH_AFTER_DE = frozenset(
    "dios jesus lourdes guadalupe fatima carmen montserrat rosario pilar dolores mercedes asuncion belen".split())


def given(word: str) -> bool:
    """Whether ``word`` (folded) is a given name the tables here know: a nickname, a name one stands for, or a Dutch
    or German given name written in full."""
    return word in LONG_FORMS or word in SHORT_FORMS or word in DUTCH_GIVEN
