"""What the knowledge articles know about each kind of product: materials that fit it, how to
care for it, and use-and-care tips per category.

Pure data; ``knowledge.py`` writes the articles and questions. Materials are chosen per base
product, so a cap is made of cotton or polyester and a kettlebell of cast iron. Care
instructions come with a question whose answer has to be read out of the instruction (can it
go in the dryer? in hot water?), not copied from a title.
"""

from __future__ import annotations

from dataclasses import dataclass

# Base product -> materials it may be made of (one is picked per product).
MATERIALS: dict[str, tuple[str, ...]] = {
    "Road Running Shoes": (
        "Engineered mesh upper and EVA foam midsole",
        "Knit upper and nitrogen-infused foam",
    ),
    "Trail Running Shoes": (
        "Ripstop mesh upper and a sticky rubber outsole",
        "Abrasion-resistant mesh with a rock plate",
    ),
    "Racing Flats": (
        "Monofilament mesh and a carbon fiber plate",
        "Lightweight knit and PEBA foam",
    ),
    "Stability Running Shoes": (
        "Mesh upper with a firm medial post",
        "Knit upper and dual-density foam",
    ),
    "Cushioned Running Shoes": (
        "Plush knit upper and thick EVA foam",
        "Engineered mesh and a supercritical foam midsole",
    ),
    "Hiking Boots": (
        "Full-grain leather and a waterproof membrane",
        "Nubuck leather with a Vibram rubber outsole",
    ),
    "Waterproof Hiking Shoes": (
        "Suede and mesh with a waterproof membrane",
        "Synthetic upper with a waterproof membrane",
    ),
    "Trail Sandals": (
        "Polyester webbing straps and a rubber footbed",
        "Nylon straps and a contoured EVA footbed",
    ),
    "Snow Boots": (
        "Waterproof nylon shell and a felt liner",
        "Leather upper with synthetic insulation",
    ),
    "Approach Shoes": (
        "Suede upper and a climbing rubber outsole",
        "Synthetic leather with a sticky rubber toe",
    ),
    "Tennis Shoes": (
        "Synthetic leather upper and a herringbone rubber outsole",
        "Mesh upper with a durable toe guard",
    ),
    "Basketball Shoes": (
        "Knit upper and a high-traction rubber outsole",
        "Synthetic upper with a cushioned heel unit",
    ),
    "Cross-Training Shoes": (
        "Mesh upper and a flat rubber outsole",
        "Knit upper with a firm heel clip",
    ),
    "Golf Shoes": (
        "Waterproof leather and a spikeless rubber outsole",
        "Microfiber upper with a waterproof lining",
    ),
    "Classic Court Sneakers": (
        "Smooth leather upper and a cupsole",
        "Canvas upper and a vulcanized rubber sole",
    ),
    "Trail Jacket": (
        "Nylon ripstop with a DWR coating",
        "Recycled polyester shell with mesh lining",
    ),
    "Rain Shell": ("Three-layer waterproof nylon", "Recycled polyester with a waterproof membrane"),
    "Insulated Parka": (
        "Recycled down and a nylon shell",
        "Synthetic insulation and a water-repellent shell",
    ),
    "Fleece Hoodie": ("Recycled polyester fleece", "Brushed cotton and polyester fleece"),
    "Softshell Vest": ("Stretch softshell with a fleece backing", "Nylon and elastane softshell"),
    "Windbreaker": ("Lightweight ripstop nylon", "Packable recycled polyester"),
    "Running Tank": ("Recycled polyester mesh", "Polyester and elastane knit"),
    "Yoga Tank": ("Organic cotton and elastane", "Bamboo viscose blend"),
    "Compression Shirt": ("Nylon and spandex", "Polyester and elastane compression knit"),
    "Base Layer Top": ("Merino wool", "Merino wool and nylon blend"),
    "Performance Polo": ("Moisture-wicking polyester pique", "Recycled polyester and elastane"),
    "Running Shorts": ("Lightweight woven polyester", "Recycled polyester with a mesh liner"),
    "Training Joggers": ("Cotton and polyester french terry", "Stretch woven nylon"),
    "Yoga Leggings": ("Nylon and elastane", "Recycled polyester and spandex"),
    "Hiking Pants": ("Stretch nylon with a DWR finish", "Ripstop polyamide"),
    "Cycling Shorts": ("Lycra with a foam chamois", "Nylon and elastane with a gel chamois"),
    "Swim Trunks": ("Quick-dry polyester", "Recycled nylon"),
    "Racing Swimsuit": ("Chlorine-resistant polyester", "Nylon and spandex"),
    "Rash Guard": ("Polyester and spandex with UPF 50", "Recycled nylon with UPF 50"),
    "Dumbbell Set": ("Cast iron with a rubber coating", "Chrome-plated steel"),
    "Yoga Mat": ("Natural tree rubber", "TPE foam"),
    "Resistance Bands": ("Natural latex", "Fabric-covered latex"),
    "Kettlebell": ("Cast iron", "Cast iron with a vinyl coating"),
    "Foam Roller": ("High-density EVA foam", "Molded EPP foam"),
    "Jump Rope": ("Steel cable with aluminum handles", "PVC cord with foam grips"),
    "Adjustable Bench": ("Powder-coated steel and vinyl padding", "Steel frame and foam padding"),
    "Tennis Racket": ("Graphite composite", "Graphite and basalt fiber"),
    "Badminton Set": (
        "Aluminum rackets and nylon shuttlecocks",
        "Steel rackets and feather shuttlecocks",
    ),
    "Pickleball Paddle": (
        "Carbon fiber face and a polymer core",
        "Fiberglass face and a honeycomb core",
    ),
    "Squash Racket": ("Graphite", "Graphite and titanium"),
    "Backpacking Tent": (
        "Ripstop nylon and aluminum poles",
        "Silicone-coated polyester and aluminum poles",
    ),
    "Sleeping Bag": (
        "Recycled synthetic insulation and a nylon shell",
        "Goose down and a ripstop shell",
    ),
    "Hiking Backpack": (
        "Ripstop nylon with an aluminum frame",
        "Recycled polyester with a foam back panel",
    ),
    "Trekking Poles": ("Aluminum with cork grips", "Carbon fiber with foam grips"),
    "Camp Stove": ("Stainless steel and aluminum", "Anodized aluminum"),
    "Insulated Water Bottle": ("Double-wall stainless steel", "Vacuum-insulated stainless steel"),
    "Running Cap": ("Lightweight polyester", "Recycled nylon with a cotton sweatband"),
    "Merino Socks": ("Merino wool and nylon", "Merino wool, nylon and elastane"),
    "Winter Gloves": ("Fleece with a waterproof insert", "Softshell with synthetic insulation"),
    "Duffel Bag": ("Coated polyester", "Ripstop nylon"),
    "Sport Sunglasses": (
        "Polycarbonate lenses and a nylon frame",
        "Polarized lenses and a TR90 frame",
    ),
    "Swim Cap": ("Silicone", "Latex"),
}


@dataclass(frozen=True)
class Care:
    """A care instruction and a question whose answer is read out of it."""

    instruction: str
    question: str
    answer: str


CARE: dict[str, tuple[Care, ...]] = {
    "shoes": (
        Care(
            "Wipe with a damp cloth and air dry away from direct heat",
            "Can the {name} be dried on a radiator?",
            "No, air dry them away from direct heat",
        ),
        Care(
            "Hand wash with mild soap and take the insoles out to dry",
            "What should be done with the insoles of the {name} when washing them?",
            "Take the insoles out to dry",
        ),
        Care(
            "Brush off dirt after use and treat with a waterproofing spray once a month",
            "How often should the {name} be treated with waterproofing spray?",
            "Once a month",
        ),
    ),
    "apparel": (
        Care(
            "Machine wash cold and hang to dry; do not tumble dry",
            "Can the {name} go in the tumble dryer?",
            "No, hang it to dry",
        ),
        Care(
            "Hand wash in cold water and lay flat to dry",
            "How should the {name} be dried?",
            "Lay it flat to dry",
        ),
        Care(
            "Machine wash at 30 degrees inside out and tumble dry low",
            "At what temperature should the {name} be washed?",
            "30 degrees",
        ),
    ),
    "equipment": (
        Care(
            "Wipe down with a mild disinfectant after each use",
            "What should the {name} be wiped down with after use?",
            "A mild disinfectant",
        ),
        Care(
            "Rinse with fresh water and store in a dry place",
            "Where should the {name} be stored?",
            "In a dry place",
        ),
        Care(
            "Clean with a dry cloth and keep out of direct sunlight",
            "Should the {name} be left in the sun?",
            "No, keep it out of direct sunlight",
        ),
    ),
}

# Category -> (technology sentence, use-and-care tips as (tip sentence, question, answer)).
CATEGORY_GUIDES: dict[str, tuple[str, tuple[tuple[str, str, str], ...]]] = {
    "Running Shoes": (
        "Energy-return foam and a carbon-infused plate",
        (
            (
                "Running shoes should be replaced every 300 to 500 miles, when the foam no "
                "longer springs back.",
                "After how many miles should running shoes be replaced?",
                "300 to 500 miles",
            ),
            (
                "Rotating two pairs lets the foam recover for 48 hours between runs.",
                "How long does the foam of running shoes need to recover between runs?",
                "48 hours",
            ),
        ),
    ),
    "Hiking Footwear": (
        "A waterproof membrane and a lugged grip outsole",
        (
            (
                "Break in new boots on short walks for one to two weeks before a long hike.",
                "How long should new hiking boots be broken in before a long hike?",
                "One to two weeks",
            ),
            (
                "Never dry wet boots next to a fire: the heat cracks the leather and melts "
                "the glue.",
                "Why should wet hiking boots not be dried next to a fire?",
                "The heat cracks the leather and melts the glue",
            ),
        ),
    ),
    "Court & Training Shoes": (
        "Reinforced toe caps and lateral support cages",
        (
            (
                "Keep court shoes for the court: outdoor asphalt wears the herringbone "
                "outsole smooth within weeks.",
                "What wears the outsole of court shoes smooth?",
                "Outdoor asphalt",
            ),
        ),
    ),
    "Outerwear": (
        "Recycled insulation and a water-repellent shell",
        (
            (
                "Close all zips and hook-and-loop tabs before washing a jacket so they do not "
                "snag the shell.",
                "What should be closed before a jacket is washed?",
                "All zips and hook-and-loop tabs",
            ),
            (
                "Store insulated jackets uncompressed on a hanger so the fill keeps its loft.",
                "How should insulated jackets be stored?",
                "Uncompressed on a hanger",
            ),
        ),
    ),
    "Activewear Tops": (
        "Moisture-wicking knit with anti-odor treatment",
        (
            (
                "Skip fabric softener on activewear: it clogs the fibers that wick sweat.",
                "Why should fabric softener not be used on activewear tops?",
                "It clogs the fibers that wick sweat",
            ),
        ),
    ),
    "Activewear Bottoms": (
        "Four-way stretch fabric with hidden zip pockets",
        (
            (
                "Wash leggings inside out in cold water to keep the stretch and the color.",
                "How should leggings be washed to keep their stretch?",
                "Inside out in cold water",
            ),
        ),
    ),
    "Swimwear": (
        "Chlorine-resistant fabric with UPF 50 sun protection",
        (
            (
                "Rinse swimwear in fresh water straight after swimming to wash out chlorine "
                "and salt.",
                "What should be done with swimwear straight after swimming?",
                "Rinse it in fresh water",
            ),
        ),
    ),
    "Fitness Equipment": (
        "Non-slip surfaces and rust-proof coatings",
        (
            (
                "Store resistance bands away from sunlight, which makes latex brittle.",
                "What makes the latex of resistance bands brittle?",
                "Sunlight",
            ),
            (
                "Roll yoga mats with the top side facing out so the edges lie flat.",
                "Which way should a yoga mat be rolled?",
                "With the top side facing out",
            ),
        ),
    ),
    "Racket Sports": (
        "Graphite frames with vibration dampening",
        (
            (
                "Restring a racket as many times a year as you play per week.",
                "How often should a racket be restrung?",
                "As many times a year as you play per week",
            ),
        ),
    ),
    "Camping Gear": (
        "Ultralight ripstop fabric and recycled aluminum poles",
        (
            (
                "Always pitch a new tent once at home before a trip to check every part is there.",
                "What should you do with a new tent before a trip?",
                "Pitch it once at home",
            ),
            (
                "Store sleeping bags loose in a large cotton sack, never in their stuff sack.",
                "How should a sleeping bag be stored?",
                "Loose in a large cotton sack",
            ),
        ),
    ),
    "Accessories": (
        "Merino blends and polarized lenses",
        (
            (
                "Clean sport sunglasses with the microfiber pouch, never with a paper towel, "
                "which scratches the coating.",
                "What should sport sunglasses be cleaned with?",
                "The microfiber pouch",
            ),
        ),
    ),
}
