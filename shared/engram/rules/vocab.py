"""Word lists the offline rules consult. Kept apart so the rules stay readable."""

from __future__ import annotations

# Words after "I'm" that describe a state, a place or an attitude: "I'm Tired" is not a name.
NOT_NAMES = frozenset(
    """
    a an the not no so very really just still also here there back home out in at on from with by
    fine good great ok okay alright well sorry sure glad happy sad tired sleepy hungry thirsty bored
    busy sick ill excited afraid scared worried nervous angry mad upset ready done new old young
    late early free available away off online confused lost stuck curious interested fine
    single married divorced engaged widowed separated retired unemployed pregnant vegan vegetarian
    diabetic asthmatic allergic lactose gluten originally currently based living working studying
    moving going trying looking thinking planning learning getting starting feeling doing having
    always never almost about over under into like literally totally actually honestly kind sort
    pretty quite fairly super extremely exhausted stressed fantastic wonderful awesome amazing
    terrible awful bad better worse best worst right wrong serious kidding joking certain positive
    sure thankful grateful proud impressed surprised disappointed annoyed frustrated lonely
    hopeful calm relaxed cold hot warm cool fit healthy alive dead awake asleep aware human
    """.split()
)

# Nationalities and faiths: "I'm German" is a nationality, not a name.
DEMONYMS = frozenset(
    """
    american british english scottish welsh irish canadian australian german french italian spanish
    portuguese dutch belgian swiss austrian swedish norwegian danish finnish icelandic polish czech
    slovak hungarian romanian bulgarian greek turkish russian ukrainian belarusian serbian croatian
    bosnian slovenian albanian lithuanian latvian estonian mexican brazilian argentinian argentine
    chilean peruvian colombian venezuelan cuban chinese japanese korean vietnamese thai filipino
    indonesian malaysian singaporean indian pakistani bangladeshi nepali iranian iraqi israeli
    lebanese syrian egyptian moroccan algerian tunisian nigerian ghanaian kenyan ethiopian
    south-african african european asian latino latina hispanic arab kiwi
    christian catholic protestant jewish muslim hindu buddhist sikh atheist agnostic mormon
    """.split()
)

FAITHS = frozenset("christian catholic protestant jewish muslim hindu buddhist sikh atheist agnostic mormon".split())

# Heads of job titles: "I'm a software engineer" names a job, "I'm a morning person" does not.
OCCUPATIONS = frozenset(
    """
    engineer developer programmer coder designer nurse doctor physician surgeon dentist
    pharmacist teacher professor lecturer tutor lawyer attorney solicitor barrister paralegal judge
    accountant auditor bookkeeper manager director executive ceo cto cfo coo vp founder cofounder
    co-founder entrepreneur consultant analyst architect scientist researcher chef cook baker
    butcher writer author journalist reporter editor translator interpreter artist painter
    sculptor musician composer singer dancer actor actress photographer filmmaker videographer
    animator illustrator pilot driver mechanic electrician plumber carpenter builder farmer
    gardener landscaper veterinarian vet paramedic firefighter officer soldier sailor marine
    detective cashier waiter waitress barista bartender server clerk receptionist secretary
    administrator sysadmin technician librarian student intern apprentice freelancer contractor
    salesman saleswoman salesperson marketer recruiter banker broker trader investor realtor
    economist statistician mathematician physicist chemist biologist geologist astronomer
    historian philosopher psychologist psychiatrist therapist counselor counsellor nanny
    caregiver carer midwife optometrist radiologist pediatrician surveyor planner coordinator
    specialist supervisor foreman lead officer agent broker coach trainer instructor principal
    headteacher priest pastor rabbi imam chaplain diplomat politician mayor senator tester
    copywriter strategist producer streamer youtuber podcaster blogger influencer housewife
    homemaker janitor cleaner housekeeper guard security technologist hygienist therapist
    """.split()
)

# Words that end like job titles but are not jobs ("I'm a perfectionist").
NOT_OCCUPATIONS = frozenset(
    "perfectionist optimist pessimist realist idealist minimalist tourist person fan lover".split()
)

# Conditions "I have X" may name. Others are recognised by their endings (see rules_health).
CONDITIONS = frozenset(
    """
    asthma diabetes epilepsy migraines migraine arthritis eczema psoriasis adhd add autism
    anxiety depression insomnia hypertension ibs gerd celiac coeliac lupus anemia anaemia
    dyslexia hay-fever scoliosis fibromyalgia endometriosis pcos copd cancer hiv tinnitus
    vertigo gout acne rosacea osteoporosis glaucoma cataracts sleep-apnea ptsd ocd bipolar
    """.split()
)
CONDITION_PHRASES = (
    "high blood pressure",
    "low blood pressure",
    "high cholesterol",
    "hay fever",
    "sleep apnea",
    "a heart condition",
    "a bad back",
    "bad knees",
    "a thyroid condition",
    "type 1 diabetes",
    "type 2 diabetes",
    "celiac disease",
    "coeliac disease",
    "crohn's disease",
    "multiple sclerosis",
    "chronic fatigue",
    "chronic pain",
    "long covid",
)
CONDITION_SUFFIXES = ("itis", "osis", " disease", " syndrome", " disorder", " deficiency", " condition")

# "I'm diabetic" -> (health key, fact text).
CONDITION_ADJECTIVES: dict[str, tuple[str, str]] = {
    "diabetic": ("diabetes", "Has diabetes"),
    "type 1 diabetic": ("type 1 diabetes", "Has type 1 diabetes"),
    "type 2 diabetic": ("type 2 diabetes", "Has type 2 diabetes"),
    "asthmatic": ("asthma", "Has asthma"),
    "epileptic": ("epilepsy", "Has epilepsy"),
    "anemic": ("anemia", "Has anemia"),
    "anaemic": ("anemia", "Has anemia"),
    "celiac": ("celiac disease", "Has celiac disease"),
    "coeliac": ("celiac disease", "Has celiac disease"),
    "autistic": ("autism", "Is autistic"),
    "dyslexic": ("dyslexia", "Is dyslexic"),
    "colorblind": ("color blindness", "Is colorblind"),
    "colourblind": ("color blindness", "Is colorblind"),
    "color blind": ("color blindness", "Is colorblind"),
    "deaf": ("deafness", "Is deaf"),
    "hard of hearing": ("hearing loss", "Is hard of hearing"),
    "blind": ("blindness", "Is blind"),
    "pregnant": ("pregnancy", "Is pregnant"),
    "hypertensive": ("hypertension", "Has hypertension"),
    "bipolar": ("bipolar disorder", "Has bipolar disorder"),
}

DIETS = frozenset("vegetarian vegan pescatarian pescetarian teetotal teetotaler keto kosher halal".split())

# Relation word -> (key group, canonical relation). Partners and parents are single-valued.
RELATIONS: dict[str, tuple[str, str]] = {
    **{w: ("family", "mother") for w in ("mom", "mum", "mother", "mommy", "mummy", "mama")},
    **{w: ("family", "father") for w in ("dad", "father", "daddy", "papa")},
    **{
        w: ("family", w)
        for w in (
            "wife husband partner spouse boyfriend girlfriend fiance fiancee sister brother son "
            "daughter child kid baby twin cousin aunt uncle niece nephew grandmother grandfather "
            "grandson granddaughter grandchild sibling stepmother stepfather stepson stepdaughter "
            "stepsister stepbrother"
        ).split()
    },
    "fiancé": ("family", "fiance"),
    "fiancée": ("family", "fiancee"),
    "grandma": ("family", "grandmother"),
    "granny": ("family", "grandmother"),
    "grandpa": ("family", "grandfather"),
    "stepmom": ("family", "stepmother"),
    "stepdad": ("family", "stepfather"),
    **{w: ("friend", w) for w in ("friend", "roommate", "flatmate", "housemate", "neighbor", "neighbour")},
    "best friend": ("friend", "best friend"),
    **{w: ("colleague", w) for w in ("boss", "manager", "colleague", "coworker", "co-worker")},
}
SINGLE_RELATIONS = frozenset("mother father wife husband partner spouse boyfriend girlfriend fiance fiancee".split())
PLURAL_RELATIONS = {
    "kids": "kid",
    "children": "child",
    "sisters": "sister",
    "brothers": "brother",
    "sons": "son",
    "daughters": "daughter",
    "cousins": "cousin",
    "twins": "twin",
    "grandchildren": "grandchild",
    "siblings": "sibling",
}

ANIMALS = frozenset(
    """
    dog puppy cat kitten rabbit bunny hamster parrot bird fish goldfish turtle tortoise snake lizard
    horse pony ferret gecko budgie chinchilla rat mouse pig goat chicken hedgehog cockatiel canary
    """.split()
) | {"guinea pig", "bearded dragon"}

# Well-known places, so "I left London for Paris" reads as a move and not as a job change.
PLACES = frozenset(
    w.replace("-", " ")
    for w in """
    london paris berlin munich hamburg vienna zurich geneva rome milan madrid barcelona lisbon porto amsterdam
    brussels dublin edinburgh manchester prague warsaw budapest stockholm oslo copenhagen helsinki athens
    istanbul moscow kyiv tokyo osaka seoul beijing shanghai hong-kong singapore bangkok delhi mumbai
    bangalore dubai sydney melbourne auckland toronto vancouver montreal boston chicago seattle denver
    austin dallas houston miami atlanta philadelphia portland la nyc sf brooklyn california texas
    florida germany france spain italy portugal england scotland ireland canada australia japan china
    india brazil mexico usa us uk america europe asia africa netherlands switzerland austria sweden
    norway denmark finland poland greece turkey the-us the-uk new-york los-angeles san-francisco
    """.split()  # each word one place: "new-york" is "new york", never "new" and "york"
) | {"new york", "los angeles", "san francisco", "hong kong", "the us", "the uk", "the states"}

NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
