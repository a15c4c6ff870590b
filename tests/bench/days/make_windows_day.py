#!/usr/bin/env python3
"""Write windows-w1.json: one made-up working day on Windows as an ActivityWatch export.

A plausible person's plan (issue 27 item 7), not anyone's recorded data: Sam, a freelance
web developer on a Windows 11 laptop, spends a Wednesday adding Stripe Checkout to a
client's Next.js shop ("bakery-shop") in VS Code, with Edge (profile "Work", and an
InPrivate window) for the docs, the dashboard and the preview, Windows Terminal for the
dev server and the Stripe CLI, Word, Outlook, Teams and a Meet call in Chrome. The day
also holds what the shared Linux day lacks: InPrivate windows (Hacker News, Reddit),
tutorials on the very task on YouTube, another project ("recipe-api") open in the same
editor, news sites, Reddit with i.redd.it / preview.redd.it image tabs, and short on-task
look-ups.

Buckets, as ActivityWatch's watchers on Windows write them:
- aw-watcher-window_SAM-LAPTOP ("currentwindow"): data.app is the executable's base name
  (os.path.basename of the process path: "msedge.exe", "Code.exe", "WINWORD.EXE",
  "explorer.exe"), data.title the window text. Edge's window text is
  "<tab title>[ and N more pages] - <profile> - Microsoft\u200b Edge" (Edge writes a
  zero-width space inside its name), "InPrivate" in the profile's place for a private
  window.
- aw-watcher-web-edge ("web.tab.current", the browser extension): the active tab of the
  last focused Edge window, data {url, title, audible, incognito, tabCount}; the person
  allowed the extension in InPrivate, so private tabs are recorded with incognito true.
- aw-watcher-afk_SAM-LAPTOP ("afkstatus"): lunch and a coffee break.

Deterministic: the same seed writes the same bytes. Run: python3 make_windows_day.py
[OUT] (default: windows-w1.json next to this script).
"""

import json
import os
import sys
from datetime import datetime, timedelta, timezone

SEED = 27
HOST = "SAM-LAPTOP"
DAY = datetime(2026, 11, 18, 9, 2, 0, tzinfo=timezone.utc)  # a Wednesday, UK time = UTC
EDGE = "Microsoft\u200b Edge"


class Rng:
    """A small LCG, so the day does not depend on the random module of a Python version."""

    def __init__(self, seed):
        self.s = seed

    def random(self):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.s >> 11) / float(1 << 53)

    def uniform(self, a, b):
        return a + (b - a) * self.random()

    def pick(self, items):
        return items[int(self.random() * len(items)) % len(items)]

    def chance(self, p):
        return self.random() < p


R = Rng(SEED)

# ---- pages: key -> (tab title, url) -------------------------------------------------
P = {
    # the work: Stripe, Next.js, the shop itself
    "stripe-checkout": ("Stripe Checkout | Stripe Documentation",
                        "https://docs.stripe.com/payments/checkout"),
    "stripe-quickstart": ("Build a prebuilt checkout page | Stripe Documentation",
                          "https://docs.stripe.com/checkout/quickstart?client=next"),
    "stripe-webhooks": ("Receive Stripe events in your webhook endpoint | Stripe Documentation",
                        "https://docs.stripe.com/webhooks"),
    "stripe-testing": ("Testing | Stripe Documentation", "https://docs.stripe.com/testing"),
    "stripe-cli": ("Stripe CLI | Stripe Documentation", "https://docs.stripe.com/stripe-cli"),
    "stripe-api-sessions": ("Create a Checkout Session | Stripe API Reference",
                            "https://docs.stripe.com/api/checkout/sessions/create"),
    "dash-payments": ("Payments \u2013 Bakery Shop \u2013 Stripe",
                      "https://dashboard.stripe.com/test/payments"),
    "dash-webhooks": ("Webhooks \u2013 Bakery Shop \u2013 Stripe",
                      "https://dashboard.stripe.com/test/webhooks"),
    "dash-apikeys": ("API keys \u2013 Bakery Shop \u2013 Stripe",
                     "https://dashboard.stripe.com/test/apikeys"),
    "dash-login": ("Sign in to Stripe", "https://dashboard.stripe.com/login"),
    "next-route": ("Routing: Route Handlers | Next.js",
                   "https://nextjs.org/docs/app/building-your-application/routing/route-handlers"),
    "next-env": ("Configuring: Environment Variables | Next.js",
                 "https://nextjs.org/docs/app/building-your-application/configuring/environment-variables"),
    "local-home": ("Bakery Shop \u2013 Fresh bread in Headingley", "http://localhost:3000/"),
    "local-cart": ("Your basket \u2013 Bakery Shop", "http://localhost:3000/cart"),
    "local-success": ("Order confirmed \u2013 Bakery Shop",
                      "http://localhost:3000/checkout/success?session_id=cs_test_a1Qx"),
    "local-error": ("Unhandled Runtime Error", "http://localhost:3000/cart"),
    "stripe-hosted": ("Bakery Shop", "https://checkout.stripe.com/c/pay/cs_test_a1Qx9Lm"),
    "so-signature": ("node.js - Stripe webhook signature verification failed with Next.js App Router - Stack Overflow",
                     "https://stackoverflow.com/questions/77260382/stripe-webhook-signature-verification-failed-with-next-js-app-router"),
    "so-rawbody": ("javascript - How to get the raw body of a request in a Next.js 14 route handler? - Stack Overflow",
                   "https://stackoverflow.com/questions/76985201/how-to-get-the-raw-body-of-a-request-in-a-next-js-14-route-handler"),
    "gh-stripe-node": ("GitHub - stripe/stripe-node: Node.js library for the Stripe API.",
                       "https://github.com/stripe/stripe-node"),
    "gh-issue-400": ("constructEvent fails with 400 in App Router route \u00b7 Issue #1987 \u00b7 stripe/stripe-node \u00b7 GitHub",
                     "https://github.com/stripe/stripe-node/issues/1987"),
    "gh-own-repo": ("GitHub - sam-porter/bakery-shop: Online shop for Headingley Bakery",
                    "https://github.com/sam-porter/bakery-shop"),
    "gh-own-issue": ("Take card payments at checkout \u00b7 Issue #12 \u00b7 sam-porter/bakery-shop \u00b7 GitHub",
                     "https://github.com/sam-porter/bakery-shop/issues/12"),
    "gh-own-pr": ("Add Stripe Checkout and the payment webhook by sam-porter \u00b7 Pull Request #14 \u00b7 sam-porter/bakery-shop \u00b7 GitHub",
                  "https://github.com/sam-porter/bakery-shop/pull/14"),
    "npm-stripe": ("stripe - npm", "https://www.npmjs.com/package/stripe"),
    "npm-stripejs": ("@stripe/stripe-js - npm", "https://www.npmjs.com/package/@stripe/stripe-js"),
    "mdn-text": ("Request: text() method - Web APIs | MDN",
                 "https://developer.mozilla.org/en-US/docs/Web/API/Request/text"),
    "mdn-redirect": ("Response: redirect() static method - Web APIs | MDN",
                     "https://developer.mozilla.org/en-US/docs/Web/API/Response/redirect_static"),
    "yt-tut-checkout": ("Stripe Checkout in Next.js 14 (App Router) - Full Tutorial - YouTube",
                        "https://www.youtube.com/watch?v=q8Zr2VnXw1E"),
    "yt-tut-learn": ("Learn Stripe: How to Add Payments to Your First Next.js Store - YouTube",
                     "https://www.youtube.com/watch?v=Hk4m0bTq7sA"),
    "yt-tut-webhooks": ("Stripe Webhooks Explained: Testing Locally with the Stripe CLI - YouTube",
                        "https://www.youtube.com/watch?v=c0WbV9KfZ3g"),
    "reddit-nextjs-q": ("Stripe webhook always returns 400 with the app router - what am I missing? : r/nextjs",
                        "https://www.reddit.com/r/nextjs/comments/1gq7k2m/stripe_webhook_always_returns_400_with_the_app/"),
    "g-checkout": ("stripe checkout next.js app router - Google Search",
                   "https://www.google.com/search?q=stripe+checkout+next.js+app+router"),
    "g-rawbody": ("stripe webhook raw body next 14 - Google Search",
                  "https://www.google.com/search?q=stripe+webhook+raw+body+next+14"),
    "bing-declined": ("stripe test card declined insufficient funds - Search",
                      "https://www.bing.com/search?q=stripe+test+card+declined+insufficient+funds"),
    "bing-metadata": ("stripe checkout session metadata order id - Search",
                      "https://www.bing.com/search?q=stripe+checkout+session+metadata+order+id"),
    # the other project (recipe-api), other work
    "gh-recipe-issue": ("Search returns duplicate recipes \u00b7 Issue #41 \u00b7 sam-porter/recipe-api \u00b7 GitHub",
                        "https://github.com/sam-porter/recipe-api/issues/41"),
    "prisma-distinct": ("Aggregation, grouping, and summarizing (Reference) | Prisma Documentation",
                        "https://www.prisma.io/docs/orm/prisma-client/queries/aggregation-grouping-summarizing"),
    # off: news, social, shopping, errands, entertainment
    "bbc-home": ("Home - BBC News", "https://www.bbc.co.uk/news"),
    "bbc-storm": ("Storm Ciar\u00e1n: Amber warning for wind across Yorkshire - BBC News",
                  "https://www.bbc.co.uk/news/articles/c4g7k1m2x9zo"),
    "bbc-weather": ("Leeds - BBC Weather", "https://www.bbc.co.uk/weather/2644688"),
    "guardian": ("Budget 2026: what it means for your pay, pension and bills | Politics | The Guardian",
                 "https://www.theguardian.com/politics/2026/nov/18/budget-2026-what-it-means-for-you"),
    "verge-home": ("The Verge", "https://www.theverge.com/"),
    "verge-phone": ("The new foldables are here, and they still crease | The Verge",
                    "https://www.theverge.com/2026/11/18/foldables-crease-review"),
    "tc-stripe": ("Stripe hits $120B valuation in new tender offer | TechCrunch",
                  "https://techcrunch.com/2026/11/18/stripe-tender-offer-valuation/"),
    "hn-home": ("Hacker News", "https://news.ycombinator.com/"),
    "hn-item": ("Show HN: A Forth that fits in a QR code | Hacker News",
                "https://news.ycombinator.com/item?id=42918310"),
    "hn-item2": ("Why we moved off Kubernetes | Hacker News",
                 "https://news.ycombinator.com/item?id=42917044"),
    "reddit-home": ("Reddit - Dive into anything", "https://www.reddit.com/"),
    "reddit-pics": ("My grandmother's 1962 kitchen, still untouched : r/pics",
                    "https://www.reddit.com/r/pics/comments/1gq3x8d/my_grandmothers_1962_kitchen_still_untouched/"),
    "redd-img1": ("x7k2m9q4v1zd1.jpeg (3024\u00d74032)", "https://i.redd.it/x7k2m9q4v1zd1.jpeg"),
    "redd-img2": ("b0d3n8w2c5yd1.png (1170\u00d72532)",
                  "https://preview.redd.it/b0d3n8w2c5yd1.png?width=1170&format=png&auto=webp&s=3f1a9c"),
    "reddit-aita": ("AITA for refusing to bake my sister's wedding cake for free? : r/AmItheAsshole",
                    "https://www.reddit.com/r/AmItheAsshole/comments/1gq9z1c/aita_for_refusing_to_bake_my_sisters_wedding/"),
    "reddit-redesign": ("What's the worst redesign you've seen lately? : r/webdev",
                        "https://www.reddit.com/r/webdev/comments/1gq5l0p/whats_the_worst_redesign_youve_seen_lately/"),
    "x-home": ("Home / X", "https://x.com/home"),
    "x-home2": ("(3) Home / X", "https://x.com/home"),
    "yt-home": ("YouTube", "https://www.youtube.com/"),
    "yt-gadgets": ("I Tested 10 Viral Kitchen Gadgets So You Don't Have To - YouTube",
                   "https://www.youtube.com/watch?v=P3nVb8rX2aQ"),
    "yt-lofi": ("lofi hip hop radio \U0001F4DA beats to relax/study to - YouTube",
                "https://www.youtube.com/watch?v=jfKfPfyJRdk"),
    "yt-sessions": ("Stripe Sessions 2026: Keynote - YouTube",
                    "https://www.youtube.com/watch?v=S9sK2n0tQwE"),
    "amazon-search": ("Amazon.co.uk : stand mixer", "https://www.amazon.co.uk/s?k=stand+mixer"),
    "amazon-item": ("KitchenAid Artisan Stand Mixer 4.8 L, Empire Red : Amazon.co.uk: Home & Kitchen",
                    "https://www.amazon.co.uk/dp/B00BHBOG02"),
    "council": ("Pay your council tax - Leeds City Council",
                "https://www.leeds.gov.uk/council-tax/pay-your-council-tax"),
    "rightmove": ("2 bedroom flat to rent in Headingley, Leeds, LS6 | Rightmove",
                  "https://www.rightmove.co.uk/properties/151234567"),
    # neutral-ish: browser chrome, the tracker itself
    "newtab": ("New tab", "edge://newtab/"),
    "aw": ("ActivityWatch", "http://localhost:5600/#/activity/SAM-LAPTOP/view/"),
    "outlook-web": ("Mail - Sam Porter - Outlook", "https://outlook.live.com/mail/0/"),
}


class Day:
    def __init__(self):
        self.t = DAY
        self.windows = []   # (start, seconds, app, title)
        self.web = []       # (start, seconds, data) filled at the end
        self.afk = []       # (start, seconds, status)
        self.edge = {"Work": {"tabs": 7, "page": "newtab"},
                     "InPrivate": {"tabs": 0, "page": None}}
        self.last_edge = "Work"
        self.web_marks = []  # (time, profile, page key, tabs): the extension's active tab changes
        self.prev_app = None

    # -- primitives --
    def _emit(self, app, title, seconds):
        if self.prev_app is not None and app != self.prev_app and R.chance(0.12):
            # Alt+Tab: the switcher is in front for a moment (often a zero-length event).
            sw = 0.0 if R.chance(0.5) else round(R.uniform(0.3, 1.6), 3)
            self.windows.append((self.t, sw, "explorer.exe", "Task Switching"))
            self.t += timedelta(seconds=sw + 0.05)
        self.windows.append((self.t, round(seconds, 3), app, title))
        self.t += timedelta(seconds=seconds + round(R.uniform(0.0, 0.9), 3))
        self.prev_app = app

    def app(self, exe, title, lo, hi=None):
        self._emit(exe, title, R.uniform(lo, hi if hi is not None else lo * 1.6))

    def edge_title(self, profile):
        st = self.edge[profile]
        title = P[st["page"]][0]
        more = st["tabs"] - 1
        if more == 1:
            title += " and 1 more page"
        elif more > 1:
            title += " and %d more pages" % more
        return "%s - %s - %s" % (title, profile, EDGE)

    def page(self, key, lo, hi=None, profile="Work", new_tab=None):
        st = self.edge[profile]
        if st["tabs"] == 0:
            st["tabs"] = 1
        elif new_tab is None and R.chance(0.35) or new_tab:
            st["tabs"] += 1
        if st["tabs"] > 14 and R.chance(0.5):
            st["tabs"] -= int(R.uniform(3, 7))  # a tidy-up: some tabs closed
        st["page"] = key
        self.last_edge = profile
        self.web_marks.append((self.t, profile, key, st["tabs"]))
        self._emit("msedge.exe", self.edge_title(profile), R.uniform(lo, hi if hi is not None else lo * 1.6))

    def back_to_edge(self, lo, hi=None, profile="Work"):
        """Edge in front again on the tab it was left on."""
        if self.last_edge != profile:
            st = self.edge[profile]
            self.web_marks.append((self.t, profile, st["page"], st["tabs"]))
            self.last_edge = profile
        self._emit("msedge.exe", self.edge_title(profile), R.uniform(lo, hi if hi is not None else lo * 1.6))

    def close_private(self):
        self.edge["InPrivate"] = {"tabs": 0, "page": None}
        if self.last_edge == "InPrivate":
            st = self.edge["Work"]
            self.web_marks.append((self.t, "Work", st["page"], st["tabs"]))
            self.last_edge = "Work"

    def code(self, repo, f, lo, hi=None, dirty=None):
        if dirty is None:
            dirty = R.chance(0.4)
        title = "%s%s - %s - Visual Studio Code" % ("\u25cf " if dirty else "", f, repo)
        self.app("Code.exe", title, lo, hi)

    def away(self, seconds, lock=True):
        start = self.t
        if lock:
            self.windows.append((self.t, round(seconds, 3), "LockApp.exe", "Windows Default Lock Screen"))
        self.afk.append((start, seconds, "afk"))
        self.t += timedelta(seconds=seconds + 2.1)
        self.prev_app = "LockApp.exe"

    # -- a burst of editing with quick look-ups --
    def coding(self, repo, files, minutes, lookups=(), terminal=("npm run dev",), preview=()):
        end = self.t + timedelta(minutes=minutes)
        while self.t < end:
            f = R.pick(files)
            self.code(repo, f, 15, 180)
            if R.chance(0.25):
                self.code(repo, f, 0, 4, dirty=not R.chance(0.5))  # the save toggles the marker
            r = R.random()
            if r < 0.22 and terminal:
                self.app("WindowsTerminal.exe", R.pick(terminal), 5, 50)
            elif r < 0.42 and lookups:
                self.page(R.pick(lookups), 8, 70)
            elif r < 0.55 and preview:
                self.page(R.pick(preview), 6, 40, new_tab=False)
            elif r < 0.65:
                # a quick check of a feed or the news between two edits
                key = R.pick(["x-home2", "bbc-home", "reddit-home", "verge-home", "hn-home",
                              "bbc-storm", "x-home", "hn-home"])
                if key == "hn-home":
                    self.page(key, 30, 150, profile="InPrivate")
                    self.close_private()
                else:
                    self.page(key, 30, 150)


def plan(d):
    S = "bakery-shop"
    shop_files = ["page.tsx", "route.ts", "stripe.ts", "CheckoutButton.tsx", "cart.ts",
                  "layout.tsx", "orders.ts", "schema.prisma", ".env.local", "package.json"]
    hook_files = ["route.ts", "orders.ts", "stripe.ts", "schema.prisma", "route.test.ts"]
    docs = ["stripe-checkout", "stripe-quickstart", "stripe-api-sessions", "next-route", "npm-stripe",
            "g-checkout", "next-env", "npm-stripejs", "bing-metadata"]
    hook_docs = ["stripe-webhooks", "stripe-cli", "so-signature", "so-rawbody", "mdn-text",
                 "g-rawbody", "gh-issue-400", "stripe-testing"]
    preview = ["local-home", "local-cart", "stripe-hosted", "local-success"]
    term = ["npm run dev", "Windows PowerShell", "npm install stripe @stripe/stripe-js"]
    hook_term = ["npm run dev", "Windows PowerShell",
                 "stripe listen --forward-to localhost:3000/api/webhooks/stripe"]

    # 09:02 unlock, mail, chat, a look at the news
    d.app("explorer.exe", "Program Manager", 2, 5)
    d.app("OUTLOOK.EXE", "Inbox - sam.porter@outlook.com - Outlook", 90, 150)
    d.app("OUTLOOK.EXE", "Re: Online payments for the shop - Message (HTML)", 60, 90)
    d.app("ms-teams.exe", "Chat | Priya Shah | Microsoft Teams", 40, 70)
    d.page("bbc-home", 60, 120, new_tab=True)
    d.page("bbc-storm", 120, 200, new_tab=False)
    d.page("bbc-weather", 30, 50, new_tab=False)
    d.page("guardian", 100, 160)

    # 09:20 start: the issue, the editor, the docs, a tutorial
    d.page("gh-own-issue", 50, 80, new_tab=True)
    d.page("gh-own-repo", 10, 20, new_tab=False)
    d.app("Code.exe", "Welcome - bakery-shop - Visual Studio Code", 4, 8)
    d.code(S, "package.json", 30, 50, dirty=False)
    d.page("g-checkout", 15, 30, new_tab=True)
    d.page("stripe-checkout", 90, 150, new_tab=False)
    d.page("stripe-quickstart", 120, 200)
    d.page("yt-tut-checkout", 200, 300, new_tab=True)
    for _ in range(4):  # pausing the video to type along
        d.code(S, R.pick(["stripe.ts", "route.ts", ".env.local"]), 40, 120)
        d.back_to_edge(60, 180)
    d.app("WindowsTerminal.exe", "Windows PowerShell", 10, 20)
    d.app("WindowsTerminal.exe", "npm install stripe @stripe/stripe-js", 25, 40)
    d.page("stripe-api-sessions", 25, 50, new_tab=True)
    d.page("npm-stripe", 10, 20, new_tab=False)
    d.page("dash-login", 10, 20, new_tab=True)
    d.page("dash-apikeys", 30, 60, new_tab=False)
    d.code(S, ".env.local", 20, 40, dirty=True)
    d.coding(S, shop_files, 45, docs, term, preview)

    # 10:25 a Reddit break, images opened in their own tabs
    d.page("reddit-home", 60, 120, new_tab=True)
    d.page("reddit-pics", 90, 150, new_tab=False)
    d.page("redd-img1", 20, 45, new_tab=True)
    d.page("reddit-pics", 30, 60, new_tab=False)
    d.page("redd-img2", 15, 30, new_tab=True)
    d.page("reddit-redesign", 120, 200, new_tab=False)
    d.page("reddit-home", 30, 60, new_tab=False)

    # 10:35 the checkout session and the button, with the second tutorial
    d.page("yt-tut-learn", 150, 240, new_tab=True)
    d.coding(S, shop_files, 30, docs + ["yt-tut-learn"], term, preview)

    # 11:00 stand-up call in Chrome (Meet), then a favour: the other project in the same editor
    d.app("chrome.exe", "Meet - vbq-rmxe-kto - Google Chrome", 700, 900)
    d.app("ms-teams.exe", "Chat | Dan Okafor | Microsoft Teams", 40, 80)
    d.page("gh-recipe-issue", 60, 100, new_tab=True)
    for f in ["search.ts", "recipes.service.ts", "search.ts", "recipes.test.ts", "schema.prisma"]:
        d.code("recipe-api", f, 60, 220)
        if R.chance(0.4):
            d.app("WindowsTerminal.exe", "npm test", 15, 40)
    d.page("prisma-distinct", 60, 120)
    d.code("recipe-api", "recipes.service.ts", 120, 240)
    d.app("WindowsTerminal.exe", "npm test", 30, 60)
    d.app("ms-teams.exe", "Chat | Dan Okafor | Microsoft Teams", 20, 40)

    # 11:40 back: the webhook, with short look-ups; an on-task Reddit thread
    d.app("Code.exe", "bakery-shop - Visual Studio Code", 3, 6)
    d.page("stripe-webhooks", 90, 180, new_tab=True)
    d.page("dash-webhooks", 30, 60, new_tab=True)
    d.coding(S, hook_files, 25, hook_docs + ["reddit-nextjs-q"], hook_term, ["local-cart"])
    d.page("reddit-nextjs-q", 120, 200, new_tab=True)
    d.coding(S, hook_files, 15, hook_docs, hook_term, [])

    # 12:10 a private window for Hacker News
    d.page("hn-home", 60, 100, profile="InPrivate")
    d.page("hn-item", 150, 260, profile="InPrivate")
    d.page("hn-home", 20, 40, profile="InPrivate", new_tab=False)
    d.page("hn-item2", 200, 320, profile="InPrivate")
    d.close_private()

    # 12:30 lunch
    d.away(2640)

    # 13:15 news and shopping before getting back to it
    d.app("explorer.exe", "Program Manager", 1, 3)
    d.page("verge-home", 50, 90, new_tab=True)
    d.page("verge-phone", 150, 240, new_tab=False)
    d.page("tc-stripe", 90, 150, new_tab=True)
    d.page("amazon-search", 80, 140, new_tab=True)
    d.page("amazon-item", 150, 240, new_tab=False)
    d.page("amazon-search", 20, 40, new_tab=False)

    # 13:30 webhook testing with the Stripe CLI and a tutorial on exactly that
    d.page("yt-tut-webhooks", 240, 360, new_tab=True)
    d.app("WindowsTerminal.exe", "stripe listen --forward-to localhost:3000/api/webhooks/stripe", 30, 60)
    d.coding(S, hook_files, 40, hook_docs + ["yt-tut-webhooks", "dash-webhooks"], hook_term,
             ["local-cart", "stripe-hosted", "local-success", "local-error"])
    d.page("dash-payments", 40, 80, new_tab=True)

    # 14:20 the test plan in Word, and a personal letter
    d.app("explorer.exe", "Documents", 5, 12)
    d.app("WINWORD.EXE", "Checkout test plan - Word", 300, 420)
    d.page("stripe-testing", 30, 60, new_tab=False)
    d.app("WINWORD.EXE", "Checkout test plan - Word", 120, 200)
    d.app("WINWORD.EXE", "Document1 - Word", 10, 20)
    d.app("WINWORD.EXE", "Letter to landlord - tenancy renewal - Word", 300, 480)
    d.page("rightmove", 120, 200, new_tab=True)
    d.page("council", 60, 100, new_tab=True)

    # 14:45 a private window for Reddit, then X
    d.page("reddit-aita", 200, 320, profile="InPrivate")
    d.page("reddit-home", 40, 80, profile="InPrivate", new_tab=False)
    d.close_private()
    d.page("x-home2", 90, 160, new_tab=True)
    d.page("x-home", 40, 70, new_tab=False)

    # 15:05 finishing the flow: declined cards, metadata, the success page
    d.coding(S, shop_files + hook_files, 40, docs + hook_docs + ["bing-declined", "dash-payments"],
             hook_term, preview + ["local-error"])
    d.page("bing-declined", 15, 30, new_tab=True)
    d.page("stripe-testing", 20, 40, new_tab=False)
    d.code(S, "route.test.ts", 60, 150)
    d.page("bing-metadata", 10, 25, new_tab=True)
    d.page("stripe-api-sessions", 30, 60, new_tab=False)
    d.away(600)  # coffee, screen locked
    d.coding(S, hook_files, 25, hook_docs + ["dash-payments", "dash-webhooks"], hook_term, preview)

    # 15:55 the project's chat and the pull request
    d.app("ms-teams.exe", "Bakery Shop (Clients) | Microsoft Teams", 60, 120)
    d.page("gh-own-pr", 150, 260, new_tab=True)
    d.code(S, "route.ts", 60, 120)
    d.page("gh-own-pr", 60, 100, new_tab=False)

    # 16:10 drift: YouTube, with the keynote of the payments company in between
    d.page("yt-home", 20, 40, new_tab=True)
    d.page("yt-gadgets", 300, 480, new_tab=False)
    d.page("yt-sessions", 200, 300, new_tab=False)
    d.page("yt-lofi", 15, 30, new_tab=False)
    d.app("Spotify.exe", "Spotify Premium", 20, 40)
    d.app("Spotify.exe", "Khruangbin - Maria Tambi\u00e9n", 10, 20)

    # 16:30 last round on the shop; one more look at the other project
    d.coding(S, shop_files, 30, docs + hook_docs, hook_term, preview)
    d.code("recipe-api", "search.ts", 200, 360)
    d.page("gh-recipe-issue", 40, 80, new_tab=False)
    d.page("aw", 30, 60, new_tab=True)
    d.code(S, "route.test.ts", 60, 120)
    d.app("WindowsTerminal.exe", "npm test", 30, 60)
    d.page("gh-own-pr", 60, 120, new_tab=False)
    d.app("OUTLOOK.EXE", "Inbox - sam.porter@outlook.com - Outlook", 60, 120)
    d.app("OUTLOOK.EXE", "Your Amazon.co.uk order of KitchenAid Artisan... - Message (HTML)", 20, 40)
    d.page("outlook-web", 10, 20, new_tab=True)
    d.app("SearchHost.exe", "Search", 2, 5)
    d.app("explorer.exe", "bakery-shop", 10, 20)
    d.away(900)


def iso(t):
    return t.astimezone(timezone.utc).isoformat(timespec="microseconds")


def build():
    d = Day()
    plan(d)
    end = d.t
    # The extension's events: the active tab of the last focused Edge window, from each
    # change to the next (it keeps beating while another app is in front), none while away.
    web = []
    marks = d.web_marks
    for i, (t, profile, key, tabs) in enumerate(marks):
        t_next = marks[i + 1][0] if i + 1 < len(marks) else end
        for (a0, secs, _s) in d.afk:  # the screen locked: the extension stops at the lock
            a1 = a0 + timedelta(seconds=secs)
            if t < a0 < t_next:
                t_next = a0
        title, url = P[key]
        audible = key.startswith("yt-") and key not in ("yt-home",)
        web.append((t, (t_next - t).total_seconds(), {
            "url": url, "title": title, "audible": audible,
            "incognito": profile == "InPrivate", "tabCount": tabs}))
    # afk: not-afk between the away spans
    afk = []
    cur = DAY
    for (a0, secs, _s) in d.afk:
        afk.append((cur, (a0 - cur).total_seconds(), "not-afk"))
        afk.append((a0, secs, "afk"))
        cur = a0 + timedelta(seconds=secs)
    if cur < end:
        afk.append((cur, (end - cur).total_seconds(), "not-afk"))

    def bucket(bid, typ, client, events, data_of):
        evs = [{"timestamp": iso(t), "duration": round(max(s, 0.0), 3), "data": data_of(x)}
               for (t, s, x) in sorted(events, key=lambda e: e[0], reverse=True)]  # newest first
        return {"id": bid, "created": "2026-09-02T08:14:51.204117+00:00", "name": None,
                "type": typ, "client": client, "hostname": HOST, "events": evs}

    windows = [(t, s, (a, ti)) for (t, s, a, ti) in d.windows]
    return {"buckets": {
        "aw-watcher-window_" + HOST: bucket("aw-watcher-window_" + HOST, "currentwindow",
                                            "aw-watcher-window", windows,
                                            lambda x: {"app": x[0], "title": x[1]}),
        "aw-watcher-web-edge": bucket("aw-watcher-web-edge", "web.tab.current", "aw-client-web",
                                      web, lambda x: x),
        "aw-watcher-afk_" + HOST: bucket("aw-watcher-afk_" + HOST, "afkstatus", "aw-watcher-afk",
                                         afk, lambda x: {"status": x}),
    }}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                            "windows-w1.json")
    export = build()
    with open(out, "w", encoding="utf-8") as f:
        json.dump(export, f, ensure_ascii=False, indent=1)
        f.write("\n")
    w = export["buckets"]["aw-watcher-window_" + HOST]["events"]
    print("%s: %d window events, %d web events, %d distinct windows, %.2f h" % (
        out, len(w), len(export["buckets"]["aw-watcher-web-edge"]["events"]),
        len({(e["data"]["app"], e["data"]["title"]) for e in w}),
        sum(e["duration"] for e in w) / 3600), file=sys.stderr)


if __name__ == "__main__":
    main()
