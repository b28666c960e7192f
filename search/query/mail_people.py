"""Whether a mail reply naming no parent (a phone's 'Re: Budget': no In-Reply-To nor References) is of the
conversation of an earlier message of its Subject: the rule ingest.mail.Threads joins one by within its mailbox, and
search.query.mail_threads across a collection's mail files (schema V24's mail_messages), in one place."""
from __future__ import annotations

SUBJECT_DAYS = 30  # a reply naming no parent is joined by its Subject to a message at most this many days before


def same_people(sender, people, earlier_sender, earlier_people) -> bool:
    """Whether a reply (its From's addresses ``sender``, its From, To and Cc's ``people``, sets) is among the
    people of an earlier message: its sender among the earlier one's people, the earlier one's sender among its
    own, and one of its own besides its sender among the earlier one's. Without the last, two of one's own replies
    in Sent, to Anna and to Carol, were of one conversation: their sender alone made them so."""
    return bool(sender & earlier_people and earlier_sender & people and (people - sender) & earlier_people)


def own_guess(sender, earlier_orphan: bool, earlier_sender) -> bool:
    """Whether an earlier message is one's own reply naming no parent either (``earlier_orphan``, from ``sender``):
    no conversation to join a reply to. A phone's replies to a daily 'Standup' in Thunderbird's Sent, each the day
    after the one before, were joined each to the one before: all of two months were one thread, whose 400
    messages a hit named as its own (joined across files to each day's 'Standup' in Inbox), not that day's."""
    return bool(earlier_orphan and sender & earlier_sender)
