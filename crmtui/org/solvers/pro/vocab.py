"""The sales vocabulary of the CRMArena-Pro sample orgs: the words the solvers read.

The generator writes records with these words and the reference solvers read them back: a
task's Subject names one stage's activity, a call's customer line is one remark about one
subtopic with one sentiment, a competitor is named by its full name. Keeping the words in one
module is what makes a gold answer a function of the org's text, and the knowledge articles
(:mod:`crmtui.org.generator.pro.articles`) print the same lists for the agent to read.
"""

from __future__ import annotations

#: Opportunity stages in the order a deal moves through them.
STAGES = ("Qualification", "Discovery", "Quote", "Negotiation", "Closed")

#: What each stage is for, in a sentence (the stage guide's headings).
STAGE_GOALS = {
    "Qualification": "find out whether the prospect could become a customer at all",
    "Discovery": "understand the prospect's teams, needs and current suppliers in detail",
    "Quote": "put a concrete offer in front of the prospect",
    "Negotiation": "agree on the final terms, prices and contract",
    "Closed": "wrap the deal up, won or lost, and prepare what comes after it",
}

#: Stage -> activities; each activity is a tuple of the Task/Event subjects that record it.
#: Subjects are unique across stages, so a subject always tells its stage.
ACTIVITIES: dict[str, tuple[tuple[str, ...], ...]] = {
    "Qualification": (
        ("Research the prospect's organisation", "Look up the prospect's background"),
        ("Send an introductory email", "Email a first introduction"),
        ("First call to confirm interest", "Make the initial contact call"),
        ("Check the prospect's buying history", "Review past purchases of the prospect"),
        ("Book a discovery meeting", "Schedule the discovery meeting"),
    ),
    "Discovery": (
        ("Needs assessment call", "Run the needs assessment"),
        ("Collect team sizes and sizing requirements", "Gather sizes and headcounts"),
        ("Review the prospect's current suppliers", "Map the incumbent suppliers"),
        ("Identify the decision makers", "Map who signs off on the purchase"),
        ("Site visit to see how the gear is used", "Visit the customer's facility"),
    ),
    "Quote": (
        ("Prepare the quote", "Build the price quote"),
        ("Send product samples", "Ship a sample kit"),
        ("Present the proposal", "Walk the customer through the proposal"),
        ("Run a fitting and demo session", "Hold a product demo"),
        ("Share references from similar customers", "Send customer case studies"),
    ),
    "Negotiation": (
        ("Negotiate volume pricing", "Pricing negotiation meeting"),
        ("Answer objections on delivery terms", "Resolve the customer's objections"),
        ("Draft the contract", "Prepare the contract for review"),
        ("Get internal approval for the discount", "Request discount sign-off internally"),
        ("Agree on payment terms", "Settle the payment schedule"),
    ),
    "Closed": (
        ("Record the signed contract", "File the countersigned contract"),
        ("Kick-off call with the customer", "Hold the onboarding kick-off"),
        ("Hand the account over to account management", "Introduce the account manager"),
        ("Win/loss review of the deal", "Hold the deal retrospective"),
        ("Propose a follow-up order", "Pitch an add-on order"),
    ),
}

#: Subject -> stage, for every Task and Event subject the generator writes.
SUBJECT_STAGE: dict[str, str] = {
    subject: stage
    for stage, activities in ACTIVITIES.items()
    for activity in activities
    for subject in activity
}

#: Rival companies named in sales calls, with what the internal competitive brief says.
COMPETITORS: dict[str, tuple[str, str]] = {
    "Summit Ridge Supply": (
        "ships bulk orders within a week from three warehouses",
        "charges extra for team logos and name printing",
    ),
    "Alpine Crest Gear": (
        "has the widest range of technical outerwear",
        "offers almost no volume discounts below 200 units",
    ),
    "Northwind Athletics": (
        "is the cheapest supplier of team training apparel",
        "has frequent stock-outs in common sizes",
    ),
    "Cascade Sportswear": (
        "lets buyers design custom colourways online",
        "takes up to ten weeks to deliver custom orders",
    ),
    "Ironpeak Outdoors": (
        "bundles free repairs into multi-year contracts",
        "has a small catalogue of footwear",
    ),
}

#: Subtopics of sales conversations, in the words the answers use.
TOPICS = (
    "Pricing and discounts",
    "Product quality and durability",
    "Delivery and lead times",
    "Custom branding",
    "After-sales support",
    "Sustainability of materials",
    "Ordering and invoicing",
)

#: (topic, sentiment) -> customer lines; each line is one remark, used nowhere else.
REMARKS: dict[tuple[str, str], tuple[str, ...]] = {
    ("Pricing and discounts", "positive"): (
        "Your volume pricing is better than what we pay today.",
        "The discount you offered makes this an easy sell internally.",
    ),
    ("Pricing and discounts", "negative"): (
        "Honestly, the price per unit is higher than we hoped.",
        "The discount is not enough to justify switching.",
    ),
    ("Product quality and durability", "positive"): (
        "The samples held up really well in our practice sessions.",
        "Our coaches loved how sturdy the gear felt.",
    ),
    ("Product quality and durability", "negative"): (
        "Some of the stitching on the samples came loose after a week.",
        "We are worried the soles will not last a full season.",
    ),
    ("Delivery and lead times", "positive"): (
        "Getting everything within two weeks would be great for us.",
        "Your delivery schedule fits our season start perfectly.",
    ),
    ("Delivery and lead times", "negative"): (
        "Six weeks for delivery is too long for us.",
        "Last year's order from you arrived late and that hurt us.",
    ),
    ("Custom branding", "positive"): (
        "The logo printing on the samples looked sharp.",
        "We like that you can add player names at no extra cost.",
    ),
    ("Custom branding", "negative"): (
        "The embroidered logo came out in the wrong shade.",
        "Custom printing adds too much to the price.",
    ),
    ("After-sales support", "positive"): (
        "Your support team sorted out our last exchange quickly.",
        "Having one account manager to call is a big plus.",
    ),
    ("After-sales support", "negative"): (
        "Getting a replacement last time took far too many emails.",
        "We never heard back about our warranty claim.",
    ),
    ("Sustainability of materials", "positive"): (
        "The recycled fabrics are a real selling point for our members.",
        "We appreciate the plastic-free packaging.",
    ),
    ("Sustainability of materials", "negative"): (
        "We need more proof that the materials are really recycled.",
        "Our board was not convinced by the sustainability claims.",
    ),
    ("Ordering and invoicing", "positive"): (
        "Ordering through your portal was straightforward.",
        "Monthly invoicing works well with our budget cycle.",
    ),
    ("Ordering and invoicing", "negative"): (
        "Your invoices were confusing and had to be reissued.",
        "The ordering portal keeps logging us out.",
    ),
}

#: The same remarks in a consumer's words (b2c: a person buying for themselves).
CONSUMER_REMARKS: dict[tuple[str, str], tuple[str, ...]] = {
    ("Pricing and discounts", "positive"): (
        "That price is lower than what I saw in the shops.",
        "The member discount makes it worth it for me.",
    ),
    ("Pricing and discounts", "negative"): (
        "It's a bit more than I wanted to spend.",
        "The discount doesn't really change much for me.",
    ),
    ("Product quality and durability", "positive"): (
        "The jacket I tried on felt really well made.",
        "My last pair from you lasted me three years.",
    ),
    ("Product quality and durability", "negative"): (
        "The zip on my last jacket broke after a month.",
        "I'm not sure the soles will survive my daily runs.",
    ),
    ("Delivery and lead times", "positive"): (
        "Having it at my door in two days would be perfect.",
        "Free next-day delivery is a big plus for me.",
    ),
    ("Delivery and lead times", "negative"): (
        "Three weeks is too long to wait for a pair of shoes.",
        "My last parcel from you arrived a week late.",
    ),
    ("Custom branding", "positive"): (
        "I love that I can get my initials stitched on.",
        "The personalised print on my friend's shirt looked great.",
    ),
    ("Custom branding", "negative"): (
        "The name printing costs more than the shirt itself.",
        "My initials came out crooked last time.",
    ),
    ("After-sales support", "positive"): (
        "Your team swapped my wrong size without any fuss.",
        "The chat support answered me within minutes.",
    ),
    ("After-sales support", "negative"): (
        "My return took ages to be refunded.",
        "Nobody replied to my warranty email.",
    ),
    ("Sustainability of materials", "positive"): (
        "I like that the fleece is made from recycled bottles.",
        "The cardboard-only packaging is nice to see.",
    ),
    ("Sustainability of materials", "negative"): (
        "I'd like more proof that the fabric is really recycled.",
        "I'm not convinced by the eco labels, to be honest.",
    ),
    ("Ordering and invoicing", "positive"): (
        "Paying in three instalments works well for me.",
        "The app made ordering really easy.",
    ),
    ("Ordering and invoicing", "negative"): (
        "I was charged twice for my last order.",
        "The checkout kept failing on my phone.",
    ),
}

#: Customer line -> (topic, sentiment), business and consumer lines alike.
REMARK_LABELS: dict[str, tuple[str, str]] = {
    line: key
    for remarks in (REMARKS, CONSUMER_REMARKS)
    for key, lines in remarks.items()
    for line in lines
}

#: Ways a customer brings up a competitor on a call; ``{name}`` is the full name.
COMPETITOR_LINES = (
    "We are also talking to {name} about this.",
    "{name} sent us a competing offer last week.",
    "{name} quoted us a lower price for a similar kit.",
    "To be fair, {name} has been pushing hard for this order.",
)

#: The four BANT factors, in the order upstream's answers name them.
BANT_FACTORS = ("Budget", "Authority", "Need", "Timeline")
