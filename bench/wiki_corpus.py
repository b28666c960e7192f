"""A small team's wiki as Notion and Confluence export it, written from the tables below (bench/wiki.py).

Notion's Markdown export: pages named 'Billing migration 9f1c….md' (a 32-hex id after the title), a folder of the
same name for subpages, links percent-encoded, a property block under each page's heading ('Owner: Priya Shah'),
databases as CSV beside the pages ('Tasks ….csv' and 'Tasks …_all.csv', a BOM first) and images.
Confluence's HTML export: 'Design-review-Billing-migration_1310721.html' pages, an index.html listing the space,
an attachments/ folder, and on every page the same breadcrumbs, sidebar page tree and footer.
"""
from __future__ import annotations

import csv
import hashlib
import html
import io
import re
from pathlib import Path
from urllib.parse import quote

PEOPLE = ["Lin Wei", "Priya Shah", "Tomás Reyes", "Mei Chen", "Jonas Berg", "Aisha Okafor"]

PROJECTS = [
    ("Billing migration", "Priya Shah", "In progress",
     "Move invoicing off the legacy Rails monolith onto the new ledger service. Stripe stays the payment processor; "
     "the cutover happens per customer cohort, smallest accounts first. Proration is computed by the ledger, not "
     "by Stripe. Risk: double charging during the dual-write window, mitigated by an idempotency key per invoice."),
    ("Search relaunch", "Lin Wei", "In progress",
     "Replace the Elasticsearch cluster with Postgres full text search plus a reranker. Typo tolerance through "
     "trigram indexes. Target p95 latency under 120 ms for the product catalogue."),
    ("Mobile offline mode", "Tomás Reyes", "Planned",
     "Let field technicians fill in work orders without coverage. Local SQLite store on the device, sync queue "
     "with conflict resolution: last writer wins per field, photos uploaded in the background."),
    ("SSO for enterprise", "Aisha Okafor", "Done",
     "SAML and OIDC single sign-on for enterprise customers, with SCIM provisioning. Okta and Azure AD tested. "
     "Shipped to the first three enterprise tenants in September."),
    ("Data warehouse cleanup", "Jonas Berg", "Paused",
     "Drop unused dbt models, rename staging tables, move the nightly export from cron to Airflow. Paused until "
     "the analytics hire starts."),
    ("Onboarding emails", "Mei Chen", "In progress",
     "A drip of five welcome emails over two weeks, sent through Postmark. Copy reviewed by marketing; the third "
     "email links the video tour."),
    ("Status page", "Jonas Berg", "Done",
     "A public status page on status.larkspur.io fed by the uptime checks; incidents posted by the on-call "
     "engineer."),
    ("Invoice PDF redesign", "Mei Chen", "Planned",
     "New invoice layout with the VAT breakdown per line, the customer's purchase order number and a QR code "
     "for bank transfer payments."),
    ("Rate limiting", "Lin Wei", "In progress",
     "Token bucket per API key in Redis, 600 requests a minute by default, burst of 100. Enterprise plans get "
     "custom limits; a 429 carries a Retry-After header."),
    ("GDPR export", "Aisha Okafor", "Done",
     "Self-service data export for account owners: a zip of JSON files mailed within 24 hours, as Article 20 "
     "requires. Deletion requests go through support."),
]

MEETINGS = [
    ("Weekly sync 2026-09-07", "Weekly sync", ["Lin Wei", "Priya Shah", "Mei Chen"],
     "Priya walked through the billing migration plan. Decided to migrate the smallest customers first.",
     ["Priya to draft the cohort list", "Mei to check invoice template fields"]),
    ("Weekly sync 2026-09-14", "Weekly sync", ["Lin Wei", "Tomás Reyes", "Jonas Berg"],
     "The status page went live. Jonas asked for a second pair of eyes on the uptime check intervals.",
     ["Tomás to review uptime checks"]),
    ("Weekly sync 2026-09-21", "Weekly sync", ["Lin Wei", "Priya Shah", "Aisha Okafor"],
     "Aisha reported the SSO rollout to the first enterprise tenants. Okta group mapping needed a fix.",
     ["Aisha to write the SSO setup guide for customers"]),
    ("Weekly sync 2026-09-28", "Weekly sync", ["Lin Wei", "Mei Chen", "Jonas Berg"],
     "Warehouse cleanup paused until the analytics hire starts in November.",
     ["Jonas to archive unused dbt models"]),
    ("Weekly sync 2026-10-05", "Weekly sync", ["Lin Wei", "Priya Shah", "Tomás Reyes"],
     "Offline mode spike results: SQLite on device works, conflict resolution is the hard part.",
     ["Tomás to write the conflict resolution proposal"]),
    ("Weekly sync 2026-10-12", "Weekly sync", ["Lin Wei", "Priya Shah", "Mei Chen", "Aisha Okafor"],
     "Dual-write window for billing set to two weeks per cohort. Agreed to freeze pricing changes meanwhile.",
     ["Priya to announce the pricing freeze"]),
    ("Retro Q3", "Retrospective", PEOPLE,
     "Went well: SSO shipped on time, status page. Went badly: too many interrupts from support, flaky CI. "
     "We will try a support rotation of one engineer a week.",
     ["Lin to set up the support rotation", "Jonas to quarantine flaky tests"]),
    ("Planning Q4", "Planning", PEOPLE,
     "Q4 priorities: billing migration cutover, search relaunch beta, rate limiting. Offline mode moves to Q1.",
     ["Lin to publish the Q4 roadmap"]),
    ("Incident review checkout outage", "Incident review", ["Lin Wei", "Priya Shah", "Jonas Berg"],
     "Checkout was down 38 minutes on October 2 after a connection pool exhaustion in the payments service. "
     "Root cause: a missing timeout on the tax provider call.",
     ["Priya to add timeouts to every outbound call", "Jonas to alert on pool saturation"]),
    ("Hiring sync", "Hiring", ["Lin Wei", "Aisha Okafor"],
     "Two candidates for the analytics role reached the final round. Offer to go out to the second candidate.",
     ["Aisha to prepare the offer letter"]),
    ("1-1 Lin and Mei", "One-on-one", ["Lin Wei", "Mei Chen"],
     "Mei wants to own more frontend architecture. Agreed she leads the invoice PDF redesign.",
     ["Mei to draft the invoice PDF design doc"]),
    ("Vendor call Postmark", "Vendor", ["Mei Chen", "Jonas Berg"],
     "Postmark confirmed dedicated IP warm-up takes four weeks; we stay on the shared pool until then.",
     ["Mei to schedule the IP warm-up"]),
    ("Security review rate limiting", "Review", ["Lin Wei", "Aisha Okafor"],
     "Reviewed the token bucket design. Keys must be hashed before they are used as Redis keys.",
     ["Lin to hash API keys in the limiter"]),
    ("Offsite agenda 2026", "Planning", PEOPLE,
     "Two days in Lisbon in November: day one strategy and roadmap, day two hack day and dinner.",
     ["Aisha to book the venue"]),
]

TASKS = [  # name, assignee, status, due, project
    ("Draft the customer cohort list", "Priya Shah", "Done", "2026-09-12", "Billing migration"),
    ("Fix proration rounding in the ledger", "Priya Shah", "In progress", "2026-10-20", "Billing migration"),
    ("Backfill invoice numbers", "Jonas Berg", "Not started", "2026-11-02", "Billing migration"),
    ("Announce the pricing freeze", "Priya Shah", "Done", "2026-10-14", "Billing migration"),
    ("Trigram index on product names", "Lin Wei", "Done", "2026-09-30", "Search relaunch"),
    ("Benchmark the reranker on catalogue queries", "Lin Wei", "In progress", "2026-10-25", "Search relaunch"),
    ("Remove the Elasticsearch cluster", "Jonas Berg", "Not started", "2026-12-15", "Search relaunch"),
    ("Conflict resolution proposal", "Tomás Reyes", "In progress", "2026-10-19", "Mobile offline mode"),
    ("Background photo upload", "Tomás Reyes", "Not started", "2027-01-15", "Mobile offline mode"),
    ("SSO setup guide for customers", "Aisha Okafor", "Done", "2026-09-28", "SSO for enterprise"),
    ("SCIM deprovisioning webhook", "Aisha Okafor", "Done", "2026-09-18", "SSO for enterprise"),
    ("Archive unused dbt models", "Jonas Berg", "Not started", "2026-11-30", "Data warehouse cleanup"),
    ("Write the welcome email copy", "Mei Chen", "Done", "2026-09-20", "Onboarding emails"),
    ("Schedule the dedicated IP warm-up", "Mei Chen", "In progress", "2026-10-30", "Onboarding emails"),
    ("Record the video tour", "Mei Chen", "Not started", "2026-11-10", "Onboarding emails"),
    ("Uptime check intervals review", "Tomás Reyes", "Done", "2026-09-16", "Status page"),
    ("Invoice PDF design doc", "Mei Chen", "In progress", "2026-10-28", "Invoice PDF redesign"),
    ("QR code for bank transfers", "Mei Chen", "Not started", "2026-11-20", "Invoice PDF redesign"),
    ("Hash API keys in the limiter", "Lin Wei", "Not started", "2026-10-24", "Rate limiting"),
    ("Retry-After header on 429 responses", "Lin Wei", "Done", "2026-10-08", "Rate limiting"),
    ("Custom limits for enterprise plans", "Lin Wei", "Not started", "2026-11-15", "Rate limiting"),
    ("Zip export mailer", "Aisha Okafor", "Done", "2026-08-30", "GDPR export"),
    ("Add timeouts to outbound calls", "Priya Shah", "In progress", "2026-10-16", "Billing migration"),
    ("Alert on connection pool saturation", "Jonas Berg", "Done", "2026-10-09", "Status page"),
    ("Quarantine flaky tests", "Jonas Berg", "In progress", "2026-10-31", "Data warehouse cleanup"),
    ("Set up the support rotation", "Lin Wei", "Done", "2026-10-03", "Search relaunch"),
    ("Book the offsite venue", "Aisha Okafor", "Done", "2026-10-01", "GDPR export"),
    ("Prepare the analytics offer letter", "Aisha Okafor", "In progress", "2026-10-22", "Data warehouse cleanup"),
]

GUIDES = [  # Notion pages under 'Handbook'
    ("On-call handbook",
     "The on-call engineer carries the pager for a week, Monday 10:00 to Monday 10:00. Acknowledge a page within "
     "5 minutes. Escalate to the engineering lead after 30 minutes without progress. Hand over in the Monday sync "
     "with a written summary of open incidents."),
    ("How to deploy",
     "Merge to main; CI builds the image and deploys to staging. Promote to production with `make promote` after "
     "the smoke tests pass. Never deploy on Friday afternoons. Roll back with `make rollback VERSION=…`."),
    ("Rotate API keys",
     "Create the new key in the provider's console, add it to Vault under secret/payments, redeploy, then revoke "
     "the old key after 24 hours. Stripe keys are rotated every 90 days."),
    ("Restore a database backup",
     "Backups are taken nightly with pg_dump and kept 30 days in the backups bucket. Restore into a fresh instance "
     "with pg_restore, check row counts against the monitoring dashboard, then switch the connection string."),
    ("Expense policy",
     "Books and courses up to 500 euros a year without approval. Travel booked through the company account. "
     "Submit receipts in the expenses app within 30 days."),
    ("Holidays and time off",
     "Twenty-eight days of paid leave a year plus public holidays of your country. Put leave in the shared "
     "calendar two weeks ahead; the office is closed between Christmas and New Year."),
    ("Onboarding checklist",
     "Day one: laptop, GitHub and Google accounts, 1Password vault. Week one: ship a small change to production "
     "and shadow the on-call engineer. Your buddy answers every question."),
    ("Glossary",
     "Cohort: a group of customers migrated together. Ledger: the service that records every money movement. "
     "Tenant: one customer organisation in the multi-tenant database."),
    ("Tools we use",
     "Linear for issues, Notion for the wiki, Confluence for engineering design docs, Grafana for dashboards, "
     "PagerDuty for the pager, Postmark for transactional email."),
    ("Team directory",
     "Lin Wei, engineering lead. Priya Shah, payments. Tomás Reyes, mobile. Mei Chen, frontend. Jonas Berg, "
     "infrastructure and data. Aisha Okafor, security and identity."),
]

CONFLUENCE = [  # title, parent, author, [(heading, paragraph), ...]
    ("Engineering Home", None, "Lin Wei",
     [("Welcome", "This space holds design reviews, architecture decision records, incident postmortems and "
       "release notes of the engineering team.")]),
    ("Design reviews", "Engineering Home", "Lin Wei",
     [("How we review", "A design review is booked once a design doc is ready. Two reviewers from outside the "
       "project sign off; the decision is recorded on the page.")]),
    ("Design review - Billing migration", "Design reviews", "Priya Shah",
     [("Context", "The legacy monolith generates invoices in a nightly batch that takes four hours."),
      ("Options", "Option A: big bang cutover. Option B: per-cohort migration with dual writes."),
      ("Decision", "We chose option B, per-cohort migration with a dual-write window of two weeks; the ledger "
       "becomes the source of truth once a cohort's reconciliation report shows no differences."),
      ("Open questions", "How to handle credit notes issued before the migration.")]),
    ("Design review - Search relaunch", "Design reviews", "Lin Wei",
     [("Context", "Elasticsearch costs 2,400 dollars a month and nobody on the team knows how to tune it."),
      ("Decision", "Move catalogue search to Postgres full text search with trigram indexes and a small "
       "cross-encoder reranker; keep Elasticsearch read-only until the beta ends.")]),
    ("Design review - Rate limiting", "Design reviews", "Lin Wei",
     [("Decision", "Token bucket in Redis keyed by the hashed API key; limits read from the plan table and cached "
       "for one minute. Rejected: a sliding window log, too much memory per key.")]),
    ("Architecture decision records", "Engineering Home", "Lin Wei",
     [("Format", "Each ADR states context, decision and consequences, and is never edited after acceptance; a "
       "later ADR supersedes it.")]),
    ("ADR-001 Postgres as the primary database", "Architecture decision records", "Jonas Berg",
     [("Decision", "Postgres 16 on managed instances for every service; no MongoDB."),
      ("Consequences", "Schema migrations go through the migrations repository and are reviewed.")]),
    ("ADR-004 Event sourcing for the ledger", "Architecture decision records", "Priya Shah",
     [("Decision", "The ledger stores immutable events (charge created, refund issued) and derives balances "
       "from them; snapshots every thousand events."),
      ("Consequences", "Corrections are new compensating events, never updates.")]),
    ("ADR-007 Feature flags with Unleash", "Architecture decision records", "Mei Chen",
     [("Decision", "Self-hosted Unleash for feature flags; flags older than 90 days are reviewed monthly.")]),
    ("ADR-009 Kafka rejected for internal events", "Architecture decision records", "Jonas Berg",
     [("Decision", "Internal events go through Postgres LISTEN/NOTIFY and an outbox table, not Kafka: our volume "
       "is 40 events a second.")]),
    ("Incident postmortems", "Engineering Home", "Jonas Berg",
     [("Template", "Summary, impact, timeline, root cause, what went well, action items with owners.")]),
    ("Postmortem 2026-10-02 checkout outage", "Incident postmortems", "Priya Shah",
     [("Impact", "Checkout unavailable for 38 minutes; 212 orders failed."),
      ("Root cause", "The tax provider stopped answering; calls without a timeout held every connection of the "
       "payments service pool until it was exhausted."),
      ("Action items", "Timeouts on every outbound call (Priya Shah). Pool saturation alert (Jonas Berg).")]),
    ("Postmortem 2026-08-19 email delays", "Incident postmortems", "Mei Chen",
     [("Impact", "Password reset emails arrived up to two hours late."),
      ("Root cause", "Postmark's shared IP pool was throttled after a spam complaint burst from another sender.")]),
    ("Postmortem 2026-07-03 DNS expiry", "Incident postmortems", "Jonas Berg",
     [("Impact", "The marketing site was unreachable for three hours."),
      ("Root cause", "The domain's auto-renewal failed on an expired company credit card.")]),
    ("Release notes", "Engineering Home", "Mei Chen",
     [("Where", "Release notes are written for every production release that a customer can notice.")]),
    ("Release 4.12", "Release notes", "Mei Chen",
     [("New", "Single sign-on with SAML for enterprise plans. Audit log export as CSV."),
      ("Fixed", "Invoices showed the wrong currency symbol for Swiss francs.")]),
    ("Release 4.13", "Release notes", "Mei Chen",
     [("New", "Status page linked from the app footer. Rate limit headers on every API response."),
      ("Fixed", "The mobile app crashed when a work order had more than 50 photos.")]),
    ("Release 4.14", "Release notes", "Tomás Reyes",
     [("New", "Bulk edit of work orders. Dark mode in the web app."),
      ("Fixed", "CSV import rejected files with a byte-order mark.")]),
    ("API guidelines", "Engineering Home", "Lin Wei",
     [("Naming", "Resources are plural nouns; fields are snake_case; timestamps are RFC 3339 in UTC."),
      ("Pagination", "Cursor pagination with a next_cursor field; page size at most 100."),
      ("Errors", "Errors return a machine-readable code, a message and a documentation link.")]),
    ("Code review guidelines", "Engineering Home", "Lin Wei",
     [("Expectations", "Review within one working day. Approve when it is better than before, not perfect."),
      ("Size", "Keep pull requests under 400 changed lines; split refactors from behaviour changes.")]),
    ("Security policies", "Engineering Home", "Aisha Okafor",
     [("Access", "Production access through the bastion with hardware keys; access reviewed every quarter."),
      ("Secrets", "Secrets live in Vault; never in environment files committed to git."),
      ("Vulnerabilities", "Critical vulnerabilities are patched within 48 hours, high ones within two weeks.")]),
    ("Quarterly OKRs Q4 2026", "Engineering Home", "Lin Wei",
     [("Objective 1", "Finish the billing migration: every cohort on the ledger by December 15."),
      ("Objective 2", "Search relaunch beta for 20 percent of traffic with p95 under 120 ms."),
      ("Objective 3", "Cut pages to the on-call engineer by half.")]),
    ("Interview process", "Engineering Home", "Aisha Okafor",
     [("Stages", "Recruiter screen, take-home exercise of at most three hours, pairing session, values interview."),
      ("Decision", "The hiring manager decides after a debrief the same day; candidates hear back within a week.")]),
    ("Service catalogue", "Engineering Home", "Jonas Berg",
     [("Services", "payments-api (Priya Shah), ledger (Priya Shah), catalogue-search (Lin Wei), notifier "
       "(Mei Chen), mobile-sync (Tomás Reyes), identity (Aisha Okafor).")]),
    ("Local development setup", "Engineering Home", "Tomás Reyes",
     [("Requirements", "Docker, Python 3.12, Node 20 and direnv."),
      ("Steps", "Clone the monorepo, run `make bootstrap`, then `make dev` starts every service with seed data.")]),
    ("Observability", "Engineering Home", "Jonas Berg",
     [("Metrics", "Prometheus scrapes every service; dashboards in Grafana per service."),
      ("Tracing", "OpenTelemetry traces sampled at 10 percent, kept seven days in Tempo.")]),
    ("Mobile release process", "Engineering Home", "Tomás Reyes",
     [("Cadence", "A mobile release every two weeks on Tuesday; TestFlight and internal track first."),
      ("Hotfix", "A hotfix skips the train after the engineering lead approves it.")]),
    ("Data retention", "Security policies", "Aisha Okafor",
     [("Rules", "Application logs kept 30 days, audit logs seven years, deleted accounts purged after 90 days.")]),
]

# (question, acceptable answers: path fragments with the Notion ids left out)
QUESTIONS = [
    ("who owns the billing migration", ["Billing migration.md"]),
    ("billing migration owner", ["Billing migration.md"]),
    ("what did we decide in the design review for the billing migration", ["Design-review-Billing-migration"]),
    ("design review decision search relaunch", ["Design-review-Search-relaunch"]),
    ("why did we reject a sliding window for rate limiting", ["Design-review-Rate-limiting"]),
    ("open tasks for Lin", ["Tasks"]),
    ("what is Mei working on that is not started", ["Tasks"]),
    ("who is assigned to backfill invoice numbers", ["Tasks", "Backfill invoice numbers"]),
    ("when is the reranker benchmark due", ["Tasks", "Benchmark the reranker"]),
    ("tasks of the rate limiting project", ["Tasks", "Rate limiting.md"]),
    ("On-call handbook", ["On-call handbook.md"]),
    ("Expense policy", ["Expense policy.md"]),
    ("API guidelines", ["API-guidelines"]),
    ("Security policies", ["Security-policies"]),
    ("Release 4.13", ["Release-4.13"]),
    ("ADR-004 Event sourcing for the ledger", ["ADR-004"]),
    ("how fast must I acknowledge a page when on call", ["On-call handbook.md"]),
    ("how do I roll back a deploy", ["How to deploy.md"]),
    ("how often are Stripe keys rotated", ["Rotate API keys.md"]),
    ("how to restore the database from a backup", ["Restore a database backup.md"]),
    ("how many days of holiday do we get", ["Holidays and time off.md"]),
    ("what caused the checkout outage", ["Postmortem-2026-10-02", "Incident review checkout outage.md"]),
    ("why were password reset emails late", ["Postmortem-2026-08-19"]),
    ("why did the marketing site go down", ["Postmortem-2026-07-03"]),
    ("which release added dark mode", ["Release-4.14"]),
    ("when was SAML single sign-on released", ["Release-4.12", "SSO for enterprise.md"]),
    ("why not Kafka", ["ADR-009"]),
    ("which database do we use", ["ADR-001"]),
    ("how are feature flags managed", ["ADR-007"]),
    ("pagination rules for the API", ["API-guidelines"]),
    ("how big should a pull request be", ["Code-review-guidelines"]),
    ("how quickly do we patch critical vulnerabilities", ["Security-policies"]),
    ("how long do we keep audit logs", ["Data-retention"]),
    ("who owns the ledger service", ["Service-catalogue"]),
    ("what are the Q4 objectives", ["Quarterly-OKRs", "Planning Q4.md"]),
    ("how do I set up my laptop for local development", ["Local-development-setup"]),
    ("what went badly in the Q3 retro", ["Retro Q3.md"]),
    ("what was decided about the pricing freeze", ["Weekly sync 2026-10-12.md"]),
    ("where is the offsite", ["Offsite agenda 2026.md"]),
    ("how long does the Postmark IP warm-up take", ["Vendor call Postmark.md"]),
    ("interview stages for engineers", ["Interview-process"]),
    ("what does cohort mean", ["Glossary.md"]),
]


def notion_id(title: str) -> str:
    return hashlib.md5(title.encode()).hexdigest()


def named(title: str) -> str:
    return f"{title} {notion_id(title)}"


def link(target: str, odd: bool = False) -> str:
    """A Notion link as its export writes one: every space %20; some exports encode the '.' of '.md' too."""
    encoded = quote(target)
    return encoded[:-3] + "%2Emd" if odd and encoded.endswith(".md") else encoded


def notion(root: Path) -> int:
    home = named("Team Wiki")
    base = root / "Notion" / home
    pages = 0

    def page(rel: str, title: str, properties: list[tuple[str, str]], body: str) -> None:
        nonlocal pages
        path = root / "Notion" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        props = "\n".join(f"{k}: {v}" for k, v in properties)
        path.write_text(f"# {title}\n\n" + (props + "\n\n" if props else "") + body.rstrip() + "\n", encoding="utf-8")
        pages += 1

    sections = [("Projects", PROJECTS), ("Meeting notes", MEETINGS), ("Handbook", GUIDES)]
    tasks = link(f"{home}/{named('Tasks')}.csv")
    page(f"{home}.md", "Team Wiki", [], "Larkspur's team wiki.\n\n" + "\n\n".join(
        f"[{name}]({link(f'{home}/{named(name)}.md')})" for name, _ in sections) + f"\n\n[Tasks]({tasks})")
    for name, items in sections:
        listing = []
        for item in items:
            title = item[0]
            listing.append(f"[{title}]({link(f'{named(name)}/{named(title)}.md', odd=len(listing) % 3 == 2)})")
        page(f"{home}/{named(name)}.md", name, [], "\n\n".join(listing))
    for i, (title, owner, status, text) in enumerate(PROJECTS):
        folder = f"{home}/{named('Projects')}"
        body = text + "\n\n## Milestones\n\n- Design review booked\n- First cohort\n- Done when every customer is moved\n"
        if i == 0:
            (base / named("Projects") / named(title)).mkdir(parents=True, exist_ok=True)
            (base / named("Projects") / named(title) / "cohorts.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
            body += f"\n![cohorts.png]({link(named(title) + '/cohorts.png')})\n"
        page(f"{folder}/{named(title)}.md", title,
             [("Owner", owner), ("Status", status), ("Quarter", "Q4 2026"),
              ("Created", f"September {3 + i}, 2026 9:14 AM")], body)
    for i, (title, kind, attendees, summary, actions) in enumerate(MEETINGS):
        folder = f"{home}/{named('Meeting notes')}"
        body = "## Notes\n\n" + summary + "\n\n## Action items\n\n" + "\n".join(f"- [ ] {a}" for a in actions)
        page(f"{folder}/{named(title)}.md", title,
             [("Type", kind), ("Attendees", ", ".join(attendees)), ("Created", f"October {1 + i}, 2026 10:00 AM")],
             body)
    for title, text in GUIDES:
        page(f"{home}/{named('Handbook')}/{named(title)}.md", title, [("Last edited by", "Lin Wei")], text)
    for name, assignee, status, due, project in TASKS[:8]:  # a database's rows are pages too
        page(f"{home}/{named('Tasks')}/{named(name)}.md", name,
             [("Assignee", assignee), ("Status", status), ("Due", due), ("Project", project)], "")
    header = ["Name", "Assignee", "Status", "Due", "Project"]
    for suffix, rows in (("", [t for t in TASKS if t[2] != "Done"]), ("_all", TASKS)):
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(header)
        for name, assignee, status, due, project in rows:
            relation = f"{project} (../{link(named('Projects') + '/' + named(project) + '.md')})"
            writer.writerow([name, assignee, status, due, relation])
        (base / f"{named('Tasks')}{suffix}.csv").write_text("\ufeff" + out.getvalue(), encoding="utf-8")
    return pages


def confluence_name(title: str, page_id: int) -> str:
    return re.sub("-+", "-", "".join(c if c.isalnum() or c == "." else "-" for c in title)).strip("-") + \
        f"_{page_id}.html"


def confluence(root: Path) -> int:
    space = root / "Confluence" / "ENG"
    space.mkdir(parents=True, exist_ok=True)
    ids = {title: 1310720 + i for i, (title, *_) in enumerate(CONFLUENCE)}
    files = {title: confluence_name(title, ids[title]) for title in ids}
    parents = {title: parent for title, parent, *_ in CONFLUENCE}
    tree = "\n".join(f'<li><a href="{files[t]}">{html.escape(t)}</a></li>' for t in ids)
    for title, parent, author, blocks in CONFLUENCE:
        chain, at = [], parent
        while at:
            chain.insert(0, at)
            at = parents[at]
        crumbs = "".join(f'<li><span><a href="{files[t]}">{html.escape(t)}</a></span></li>' for t in chain)
        body = []
        for heading, paragraph in blocks:
            anchor = "".join(c for c in title + "-" + heading if c.isalnum())
            body.append(f'<h2 id="{anchor}">{html.escape(heading)}</h2>\n<p>{html.escape(paragraph)}</p>')
        attachments = ""
        if "Design review" in title and parent:
            folder = space / "attachments" / str(ids[title])
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
            attachments = f"""<div class="pageSection group">
<div class="pageSectionHeader"><h2 id="attachments" class="pageSectionTitle">Attachments:</h2></div>
<div class="greybox" align="left"><img src="images/icons/bullet_blue.gif" height="8" width="8" alt=""/>
<a href="attachments/{ids[title]}/diagram.png">diagram.png</a> (image/png)<br/></div></div>"""
        (space / files[title]).write_text(f"""<!DOCTYPE html>
<html>
    <head>
        <title>Engineering : {html.escape(title)}</title>
        <link rel="stylesheet" href="styles/site.css" type="text/css" />
        <meta http-equiv="Content-Type" content="text/html; charset=UTF-8">
    </head>
    <body class="theme-default aui-theme-default">
        <div id="page">
            <div id="main" class="aui-page-panel">
                <div id="main-header">
                    <div id="breadcrumb-section">
                        <ol id="breadcrumbs">
                            {crumbs}
                        </ol>
                    </div>
                    <h1 id="title-heading" class="pagetitle">
                        <span id="title-text">Engineering : {html.escape(title)}</span>
                    </h1>
                </div>
                <div id="navigation" class="sidebar">
                    <h2>Space pages</h2>
                    <ul class="page-tree">
{tree}
                    </ul>
                </div>
                <div id="content" class="view">
                    <div class="page-metadata">
                        Created by <span class='author'> {html.escape(author)}</span>, last modified on Oct 12, 2026
                    </div>
                    <div id="main-content" class="wiki-content group">
{chr(10).join(body)}
                    </div>
{attachments}
                </div>
            </div>
            <div id="footer" role="contentinfo">
                <section class="footer-body">
                    <p>Document generated by Confluence on Nov 03, 2026 10:15</p>
                    <div id="footer-logo"><a href="http://www.atlassian.com/">Atlassian</a></div>
                </section>
            </div>
        </div>
    </body>
</html>
""", encoding="utf-8")
    (space / "index.html").write_text(f"""<!DOCTYPE html>
<html><head><title>Engineering</title></head>
<body><div id="main-content"><h1>Engineering</h1><h2>Available Pages:</h2><ul>
{tree}
</ul></div></body></html>
""", encoding="utf-8")
    (space / "styles").mkdir(exist_ok=True)
    (space / "styles" / "site.css").write_text("body { font-family: sans-serif; }\n#navigation { float: left; }\n")
    return len(CONFLUENCE) + 1


def write(root: Path) -> int:
    """Write the export under ``root``; the number of pages."""
    return notion(root) + confluence(root)


if __name__ == "__main__":
    import sys
    print(write(Path(sys.argv[1])), "pages")
