"""Writes bench/data/policy_clauses.json, the labelled clauses of bench/parts/policy_leaks.py (issue 44):
issue 33's 124 clauses about the seven banks (and "money", "religion"), kept first and as they were, then
clauses about ten free topics and the banks, in varied phrasing (casual, formal, lower-case, non-native
English, several countries' names), alone and mixed with other topics, and look-alikes that must not be
excluded for the topic they resemble ("fasting before a blood test" is not religion).

    python -m bench.data.policy_clauses_build

`about` lists every bank and free topic a clause is about: excluding any of them must cut it, excluding
any other must keep it. Family health is Health (a relative's illness is medical information), children
are Relationships, immigration status is a legal matter and Personal. `topics` holds each free topic with
the few examples a tenant's config would give. The held-aside rule, fixed before any tuning: every third
clause of the whole list (index % 3 == 2) is held aside, except ROUND5's, appended later and marked `tuning`
(below); nothing is tuned on it. Deterministic: no
randomness, the order below is the order written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "policy_clauses.json"
KEPT = 124  # issue 33's clauses: the file's first 124, never rewritten

SHORT = {
    "Pe": "Personal",
    "Wo": "Work",
    "Re": "Relationships",
    "He": "Health",
    "In": "Interests",
    "Ev": "Events",
    "Ge": "General",
    "M": "money",
    "R": "religion",
    "P": "politics",
    "S": "sexuality",
    "C": "children",
    "L": "legal matters",
    "LOC": "location",
    "FH": "family health",
    "ED": "employment disputes",
    "IM": "immigration status",
}

TOPICS: dict[str, list[str]] = {
    "politics": ["who I vote for", "my political views", "I went to a protest"],
    "sexuality": ["my sexual orientation", "I'm gay", "coming out"],
    "children": ["my kids", "my son's school", "my daughter"],
    "legal matters": ["my court case", "talking to my lawyer", "a fine I got"],
    "location": ["where I live", "where I am right now", "my home town"],
    "family health": ["my mum's illness", "my dad is in hospital", "my sister's diagnosis"],
    "employment disputes": ["a grievance at work", "my boss treats me unfairly", "taking my employer to a tribunal"],
    "immigration status": ["my visa", "my residence permit", "applying for citizenship"],
}

# Each line: the clause | its banks and topics (SHORT's abbreviations, space-separated).
WRITTEN = """
we always go to my gran's for eid, the whole family comes | R Re Ev
i light a candle for my dad at st mary's every year | R Re
I attend Friday prayers at the mosque near my office | R
honestly church on sunday is the only calm hour of my week | R
I am Hindu and we celebrate Diwali at home with sweets | R Ev
my rabbi helped me a lot after the divorce | R L Re
we keep kosher, so no bacon for me | R
I'm a lapsed Catholic, haven't been to confession in years | R
in Nigeria my family is Pentecostal, very strict | R Re LOC
I'm giving up chocolate for Lent | R
my kids do sunday school while I help with the coffee | R C Re
the pastor asked me to join the choir | R
i read a bit of the bible every night before sleep | R
I became a Buddhist in my twenties and meditate at the temple | R
in my country we are muslim and I pray five time in the day | R
I stopped believing in god after uni | R
we're going on hajj next year inshallah | R Ev
my parents are Sikh and I wear a kara every day | R Re
I do the Shabbat dinner every friday with my flatmates | R Re
converting to Judaism has been a long process for me | R
I voted for the Greens at the last general election | P
i'm pretty left wing tbh, always have been | P
went to the climate march in Berlin on saturday | P Ev LOC
I'm a paid-up member of the Labour Party | P
honestly I think the prime minister should resign | P
I volunteer for the Democrats during the midterms | P Ev
I'm a conservative but I hate what the party has become | P
my dad and I argue about Brexit every Christmas | P Re Ev
I signed the petition against the new surveillance law | P
i've been canvassing door to door for the local council race | P Ev
in India I vote for the BJP but my wife votes Congress | P Re
I don't trust any politician, I spoil my ballot | P
I'm standing as a candidate in the municipal elections in Lyon | P Ev
we went to the protest against the pension reform | P Ev
my union is organising a strike against the government cuts | P Wo
I'm libertarian, keep the state out of my life | P
in Brazil I supported Lula in the election | P
I donate monthly to the Republican party | P M
my salary is 52k before tax | M Wo
I'm paying off about 30,000 in student loans | M
my savings account is nearly empty after the holiday | M
I put 300 euros a month into my pension fund | M
we're behind on the mortgage payments again | M
i owe my sister 500 quid and it's awkward | M Re
I got a bonus of 5k this year | M Wo
my credit score is terrible since the bankruptcy | M L
I bought a bit of bitcoin last week | M
the bank declined my card at the supermarket, so embarrassing | M
I earn around 40 lakh per year in Bangalore | M Wo LOC
we are saving for a house, we have 15k now | M Pe
my overdraft is maxed out | M
I have a loan of 2 million yen for the car | M
I inherited some money from my grandmother | M Re
I'm gay and I came out to my family last year | S Pe Re
i'm bi but most people at work don't know | S Pe
my girlfriend and I are celebrating two years together | S Re Ev
I'm trans and I started hormones this spring | S Pe He
I'm asexual, dating apps are a nightmare | S Pe
I go to the pride march every year with my boyfriend | S Re Ev
honestly I'm still figuring out my sexuality | S Pe
I'm a lesbian and my wife is from Portugal | S Pe Re
I came out to my parents at sixteen, it went badly | S Re
my husband and I are both men, we married in Toronto | S Re LOC
i'm queer and proud of it | S Pe
I am homosexual but in my country I cannot say it | S Pe
our sex life has been non-existent since the baby | S Re C
I'm pansexual, labels don't matter much to me | S Pe
my son starts primary school in September | C Re Ev
my daughter has a swimming lesson every wednesday | C Re
the twins are teething and nobody sleeps | C Re
i pick up the kids from nursery at 5 | C Re
my 14-year-old won't get off his phone | C Re
we're trying for a baby | C Re He
my little one turned three yesterday | C Re Ev
my son has autism and needs extra support at school | C Re He FH
I'm a single mum of two boys | C Re Pe
our eldest is applying to universities | C Re
the baby finally sleeps through the night | C Re
my kids go to a bilingual school in Madrid | C Re LOC
my daughter got into trouble for bullying at school | C Re
we adopted our son from Colombia when he was two | C Re
i have 3 children and they are all in the same school | C Re
my stepdaughter is moving in with us | C Re
I'm going through a divorce and it's getting ugly | L Re
I got a speeding ticket on the motorway | L
my lawyer says the case will settle out of court | L
I have a court date next month for the custody hearing | L Re C Ev
I was arrested once when I was nineteen | L
I'm suing my landlord over the deposit | L M
I got a parking fine in Dublin, 80 euros | L M LOC
the police came to my house about the noise complaint | L
I finally made a will with a solicitor | L
my ex took me to small claims court | L Re
I have a criminal record from my teens | L
we had to sign an NDA and now there's a lawsuit | L Wo
I'm on probation for another six months | L
I was a witness in a trial last week | L Ev
I live in Edinburgh, near the Meadows | LOC Pe
i'm at the airport right now, flight delayed | LOC Ev
I just moved to Melbourne from Sydney | LOC Pe
I'm staying at my sister's place in Leeds this week | LOC Re
my flat is on Rue de Rivoli, fourth floor | LOC Pe
I'm in Lagos for work until friday | LOC Wo Ev
we live ten minutes from the train station in Utrecht | LOC Pe
I'm home alone tonight | LOC
I grew up in a small village outside Kraków | LOC Pe
i'm currently in a cafe on Main Street | LOC
I live in Mumbai with my parents | LOC Pe Re
we're renting a house in Austin, Texas | LOC Pe
I moved back to my home town in Kerala | LOC Pe
I'm sitting in the hospital waiting room right now | LOC He
my mum was diagnosed with breast cancer in may | FH He Re
dad had a heart attack last week, he's in the ICU | FH He Re
my sister has type 1 diabetes | FH He Re
my grandma has dementia and doesn't recognise me anymore | FH He Re
my brother is in rehab for alcohol | FH He Re
my husband's depression is getting worse | FH He Re
my father is having knee surgery on Tuesday | FH He Re Ev
my son's asthma flared up again last night | FH He Re C
my wife had a miscarriage in the spring | FH He Re
mum's chemo starts next month, I'm scared | FH He Re Ev
my uncle has Parkinson's | FH He Re
my daughter was diagnosed with ADHD | FH He Re C
my mother she is very sick with the kidneys, she does dialysis | FH He Re
my partner is recovering from covid | FH He Re
i'm taking my employer to an employment tribunal | ED Wo L
I filed a grievance against my manager for bullying | ED Wo
they fired me for being pregnant, I'm sure of it | ED Wo He
my boss hasn't paid my overtime for three months | ED Wo M
HR is investigating my complaint about harassment | ED Wo
I'm in a dispute with my company over unfair dismissal | ED Wo L
the union rep is helping me with my disciplinary hearing | ED Wo
I was given a written warning and I think it's unfair | ED Wo
I'm suing my old employer for discrimination | ED Wo L
my contract was terminated without notice | ED Wo
they cut my hours after I complained about safety | ED Wo
I'm negotiating a settlement agreement with my employer | ED Wo L
my colleague took credit for my work and HR did nothing | ED Wo
i got a constructive dismissal claim going | ED Wo L
my work visa expires in march | IM L Pe Wo
I'm waiting for my green card interview | IM L Pe Ev
my residence permit renewal is stuck with the Home Office | IM L Pe
I came to Germany as a refugee from Syria | IM L Pe
I'm applying for British citizenship next year | IM L Pe
my asylum claim was refused and we're appealing | IM L Pe
I'm undocumented, so I can't open a bank account | IM L Pe M
I'm on a student visa in Canada | IM L Pe
my husband is waiting for his spousal visa | IM L Re
I got my permanent residency in Australia last month! | IM L Pe
my H-1B depends on my job | IM L Pe Wo
i overstayed my tourist visa by a few weeks | IM L Pe
my papers for the Italian passport are almost ready | IM L Pe
I have to do the biometrics appointment for my visa on monday | IM L Pe Ev
Breaking the fast with my family at sunset has been lovely this month | R Re
I observe Shabbat, so I'm offline from friday evening | R
the imam gave a beautiful sermon this week | R
we baptised our daughter last spring | R C Re Ev
i don't eat beef because of my faith | R
my grandfather was a Methodist minister | R Re
I cast a postal vote for the SNP | P
I'm worried the far right will win the next election | P
i marched with the teachers' union in Paris | P LOC
my brother-in-law is a city councillor for the Liberal Democrats | P Re
mortgage payment is 1,400 a month and I can barely cover it | M
I lent my mate 200 bucks and never saw it again | M Re
I'm broke till payday | M
I'm dating a guy for the first time and it feels right | S Re
I'm not out at work yet | S Wo
my boyfriend proposed on the beach in Goa | S Re Ev LOC
the kids are with their dad this weekend | C Re Ev
my daughter's first communion is on Sunday | C Re R Ev
i need to find a babysitter for saturday | C Ev
my son got his first school report today | C Re
my court hearing for the drink-driving charge is on the 12th | L Ev
the solicitor is handling my mum's estate | L Re
I got a summons for jury duty | L
I'm at my parents' house in Cork for the week | LOC Re
I'm in the office in Canary Wharf today | LOC Wo
i live right by the stadium in Manchester | LOC Pe
my dad's cancer is back | FH He Re
my sister is in hospital after a car accident | FH He Re
my mum has been depressed since dad died | FH He Re
my manager refuses to approve my leave as retaliation | ED Wo
I'm appealing my dismissal | ED Wo L
my visa interview is at the US embassy next week | IM L Pe Ev
we are waiting for the decision of the immigration office | IM L Pe
I have a British passport but my wife is still on a visa | IM L Pe Re
we're going to Mass for Christmas Eve and then dinner with my in-laws | R Ev Re
I'm fasting for Yom Kippur, so I'll skip the team lunch | R Wo Ev
my salary went up but so did my rent, and I still live in Hackney | M Wo LOC Pe
my wife and I are both Muslim and our kids go to an Islamic school | R Re C
I'm gay and my parents in Poland don't know | S Re LOC
my son's custody hearing and my visa renewal are in the same week | L C Re IM Pe Ev
I'm suing my employer and I'm also broke | ED Wo L M
my mum's stroke means I'm moving back to Glasgow | FH He Re LOC Pe
I vote Labour and I go to church, that's just me | P R
my daughter is gay and I'm proud of her | S C Re
fasting before a blood test tomorrow, no breakfast | He Ev
I go to a climbing gym on tuesdays with work friends | In Wo Re
adopted a cat from the shelter last weekend | Pe Ev
the party starts at 8 at Tom's flat | Ev Re
I love the Christmas markets in Vienna | In
our team lead is a total saint about deadlines | Wo
my code spawns a child process that hangs | Wo
I watched a courtroom drama on Netflix last night | In
the trial version of the editor expired | Ge
I'm a lawyer at a small firm in Leeds | Wo
I work in payroll for a hospital trust | Wo
I'm a paediatric nurse on the night shift | Wo
I teach year five at the local primary | Wo
my dog is basically my baby | Pe
we had a heated debate about pineapple on pizza | Ge
I'm migrating our database to postgres this sprint | Wo
the birds are migrating south already | Ge
this traffic is killing me | Ge
I'm dying to see the new Bond film | In
I'm addicted to this true crime podcast | In
I'm learning the history of the Roman Empire for fun | In
my favourite band is called The Bishops | In
the Vatican museums were amazing but packed | Ev In
I'm a member of a running club | In
I got a discount on my gym membership | In
I'm saving the best episode for the weekend | In
I'm dead broke on ideas for her birthday present | Ev Re
the pitch meeting was a total trial | Wo
i'm out of the office till monday | Wo Ev
my grandad used to tell us stories about the war | Re
the news is full of the election again | Ge P
I love chess, I play online every night | In
the baby shower games were hilarious | Ev
I'm fasting from social media this week | Ge
the kids in the park were so loud today | Ge
my phone's GPS keeps losing signal | Ge
the church bells woke me up at 7 | Ge
the bank holiday weekend was sunny for once | Ge Ev
I love the architecture of old cathedrals | In
we went to the zoo and the penguins were the best part | Ev In
I painted my bedroom a dark green | Pe
I bake sourdough every sunday | In
I'm vegan for the animals | Pe
I moved my desk next to the window | Ge
the landlord fixed the boiler finally | Pe
the cat knocked my coffee over | Pe
I'm terrible at remembering names | Pe
I'm allergic to cats but I love them | He Pe
my favourite food is pho | In
I'm learning Japanese on Duolingo | In
the supermarket ran out of eggs again | Ge
I'm team tea not coffee | Pe
I have a dentist appointment on Thursday at 3 | He Ev
my physio says my shoulder is healing | He
I have insomnia most nights | He
i broke my toe on the bed frame lmao | He
I've been on antidepressants for two years | He
my cholesterol is high | He
I'm a data analyst at an insurance company | Wo
we're launching the new product next quarter | Wo Ev
my manager is great, very supportive | Wo
I've been working from home since covid | Wo
I'm a carpenter, mostly kitchens | Wo
I just passed my accountancy exams | Wo Ev
my best friend from school is visiting | Re Ev
my girlfriend's parents are lovely | Re
my brother and I don't talk anymore | Re
we're hosting my in-laws for a week | Re Ev
my flatmate keeps eating my food | Re
I'm 29 and still figuring things out | Pe
my name is Aiko, people call me Ai | Pe
I'm half Kenyan, half Irish | Pe
I don't drive | Pe
I speak Spanish and a bit of Portuguese | Pe
I'm really into birdwatching | In
I play bass in a jazz band on weekends | In
I've been rewatching Friends | In
I support Arsenal, for my sins | In
the gig is on the 3rd of July | Ev In
my birthday dinner is on Friday | Ev Pe
we're going to Lisbon for a long weekend in April | Ev
the conference in Singapore is in two weeks | Ev Wo
we had our anniversary dinner last night | Ev Re
it's been raining all week | Ge
I think AI is overhyped | Ge
prices at the petrol station are wild | Ge
what a day honestly | Ge
that's a fair point | Ge
the trains are on strike again | Ge
my mum sends me memes every morning | Re
the kids' menu was better than the adult one lol | Ge
i'm straight out of ideas for dinner | Ge
I'm staying in tonight to watch the football | In
I'm reading a biography of Gandhi | In
my church choir friends are coming for dinner | Re R
I work at the immigration advice charity as a volunteer | Wo
my company is relocating me to Dubai in the autumn | Wo LOC Ev Pe
my pension contributions are automatic | M Wo
I'm a sucker for a good legal thriller | In
my son's football team won the league | C Re In
a friend of mine is getting deported and I don't know how to help | Re L IM
my mum is a nurse | Re
my dad works for the council | Re
i'm a season ticket holder at Celtic | In
I say the rosary with my grandmother on Sundays | R Re
ramadan mubarak! first suhoor of the year done | R
we got married in a Greek Orthodox church | R Re Ev
i'm a quaker, we sit in silence at the meeting house | R
my faith is really important to me, I'm Baptist | R
the gurdwara serves langar to anyone on Sundays, I volunteer there | R
I don't celebrate birthdays because I'm a Jehovah's Witness | R
we are Coptic and Easter is huge for us | R Ev
i pray the salah at work in the storage room | R Wo
I've been going to a Zen retreat every spring | R Ev
my family in the Philippines is very Catholic | R Re LOC
I wear a hijab since I was fifteen | R
as an atheist I find religious weddings awkward | R
Guru Nanak's birthday is a big day for our family | R Re Ev
I campaigned for Remain in the referendum | P
i think immigration policy in this country is a disgrace | P
I'm a registered independent voter in Ohio | P LOC
the government's new tax plan makes me so angry | P
my cousin is running for mayor and I'm helping with leaflets | P Re
I've joined the young socialists | P
i was at the anti-war demo outside parliament | P Ev
in Kenya I voted for Raila | P
I'm a monarchist, I love the royals | P
politically I'm centre-right | P
my uni friends are all communists, I'm more a social democrat | P Re
I wrote to my MP about the hospital closures | P
I earn 3,200 a month after tax | M Wo
i have 40k in debt across three credit cards | M
we took out a loan for the wedding | M Ev
the tax refund finally came through | M
my investment portfolio dropped 20% this year | M
I send money home to my parents in Ghana every month | M Re LOC
I'm on universal credit at the moment | M
my rent takes up half my income | M Pe
I'm in my overdraft again this month | M
the bank approved our mortgage! | M Pe
my dad pays my phone bill still, at 27 | M Re Pe
my partner came out as non-binary last year | S Re
I'm gay and married to a wonderful man | S Pe Re
my first kiss with a girl was at nineteen | S
i'm on grindr too much lol | S
I'm a straight guy but I've had feelings for a man | S Pe
me and my ex-wife are both gay now, funny how life goes | S Re
i went to my first queer club night in Berlin | S Ev LOC
I haven't had sex in a year | S
my mother still thinks I'm straight | S Re
I'm demisexual and it took years to understand | S Pe
my bisexuality is something I only talk about with close friends | S Pe
my daughter lost her first tooth today | C Re
our son is being tested for dyslexia | C Re He FH
the school run in the rain is brutal | C
my kids fight constantly on long car trips | C Re
I'm expecting our third in November | C Re He Ev
my teenage daughter wants a tattoo | C Re
our boy started at the crèche this week | C Re
homework with my 8 year old is a battle every evening | C Re
my son is an exchange student in Japan this year | C Re LOC
my children are with my ex every other weekend | C Re
I'm breastfeeding so no wine for me | C He
my daughter's parents' evening is on thursday | C Re Ev
I'm going to court over the boundary dispute with my neighbour | L Re
the judge granted the restraining order | L
I signed a prenup before the wedding | L Re
my license was suspended for six months | L
I was fined for not paying the TV licence | L M
the tenancy tribunal ruled in my favour | L Pe
my brother is in prison | L Re
i'm being sued by a former client | L Wo
we're contesting my grandad's will | L Re
I got caught shoplifting when I was young, it's on my record | L
the divorce papers came through today | L Re
I'm in Tokyo for two more days | LOC Ev
i'm on the train to Glasgow right now | LOC
I live on the 12th floor of a tower block in Nairobi | LOC Pe
I just got to the hotel in Cancún | LOC Ev
I'm from Porto but I live in Lisbon now | LOC Pe
my house is the blue one at the end of Elm Road | LOC Pe
we moved to the suburbs of Toronto last year | LOC Pe
I'm working from a café in Chiang Mai this month | LOC Wo
I'm back home in Warsaw for Christmas | LOC Ev Pe
i'm at the gym near my place | LOC In
my grandpa had a fall and broke his hip | FH He Re
my mum is on a waiting list for a new kidney | FH He Re
my brother has schizophrenia | FH He Re
my wife is pregnant and the scan showed something worrying | FH He Re C
my father-in-law has lung cancer | FH He Re
my auntie's MS has got worse this year | FH He Re
my sister-in-law is in a psychiatric unit | FH He Re
my dad can't walk since the stroke | FH He Re
I'm caring for my mother who has Alzheimer's | FH He Re
my twin has an eating disorder | FH He Re
my employer docked my wages for being late twice | ED Wo M
I'm raising a formal complaint about my pay being lower than my male colleagues | ED Wo M
the company wants me to sign a non-compete or lose my job | ED Wo L
I've been put on a performance plan I think is a setup | ED Wo
my manager threatened to fire me if I joined the union | ED Wo
they refused my request for flexible hours after maternity leave | ED Wo C
I'm going to ACAS about my redundancy | ED Wo L
my old boss still owes me my last two paychecks | ED Wo M
I reported a safety breach and now I'm being frozen out | ED Wo
my boss is bullying me and HR is useless | ED Wo
my residence card expires and the appointment is in three months | IM L Pe
I've been in the UK on a skilled worker visa for four years | IM L Pe Wo LOC
I'm applying for the Blue Card in Germany | IM L Pe
my partner visa was approved!! | IM L Pe Re
i'm an asylum seeker and I can't work yet | IM L Pe Wo
I need a sponsor to stay in the country | IM L Pe
we passed the citizenship test | IM L Pe
I'm waiting to hear about indefinite leave to remain | IM L Pe
my mum's visa to visit me was refused | IM L Re
I'm a DACA recipient | IM L Pe
i had to leave the country when my visa ran out | IM L Pe
I go to church but I'm not sure I believe anymore | R
my husband and I are both Hindus but we don't practise much | R Re
I vote but I don't follow politics closely | P
my father was a union leader and a communist | P Re
I've got 800 quid in savings, that's all | M
i'm openly gay at work and it's fine | S Wo
we're moving the kids to a new school in Cardiff | C Re LOC Ev
I've got a hearing at the magistrates' court | L
I'm in Chicago this week visiting my aunt | LOC Re Ev
my brother was diagnosed with epilepsy | FH He Re
I'm owed holiday pay and my employer won't pay it | ED Wo M
the visa sponsor at my new job fell through | IM L Pe Wo
I'm a climbing instructor at a bouldering gym | Wo In
I spend all day on spreadsheets | Wo
the interview panel was intimidating | Wo
the weekend was lovely and quiet | Ge
I've started journaling before bed | Pe
I go to a pottery class on Mondays | In
I love gardening, the tomatoes are coming in | In
I collect old maps | In
we're renovating the kitchen | Pe
I'm a night owl | Pe
I just bought my first car | Pe
the new neighbours seem nice | Ge
my boyfriend and I went to IKEA and survived | Re
my niece is visiting from Ohio | Re Ev
my friends are throwing me a surprise party | Re Ev
the meeting got cancelled, thank god | Wo
my shift finishes at 10 | Wo
I have jury-rigged a shelf in the garage | Pe
I sprained my wrist playing tennis | He In
I'm recovering from a chest infection | He
I'm seeing a psychologist for my panic attacks | He
my blood sugar was low this morning | He
I got my flu jab | He
my nephew is a big fan of dinosaurs | Re
we are going to the beach in Goa next month | Ev
the concert tickets went on sale today | Ev In
our flight to Nairobi is at 6am | Ev
I play cricket on Saturdays | In
I'm reading Murakami in Japanese | In
i love k-dramas | In
wow the sunset tonight | Ge
the printer at work is broken again | Wo
fun fact, octopuses have three hearts | Ge
honestly no idea | Ge
that recipe was a disaster | Ge
a guy on the bus was singing opera | Ge
the exhibition on medieval saints was fascinating | In
the word "mass" in physics confused me for years | Ge
I love a good political satire show | In
I'm into Bollywood films | In
the charity bake sale raised 300 pounds | Ev
my cooking is a crime | Pe
my code review was a trial by fire | Wo
I'm stuck on level 12 of the game | In
I had a dream I was a lawyer | Ge
we watched the kids' film with my friends, it was actually great | In Re
the hospital car park costs a fortune | Ge
the Pope was on the news again | Ge
I'm learning to pray... I mean play, the piano | In
I wouldn't call the local mayor a friend exactly | Ge
my manager's baby is due in March | Wo
the party at work was fun | Wo Ev
I'm a member of the film society | In
""".strip()

# Round 5 (issue 44): clauses written after the rules were last tuned, to check that a change carries over to
# phrasings it was not made on (more immigration status said as Personal, look-alikes that share a topic's
# word or shape). Appended after every clause above and marked `"tuning": true`: they are tuning clauses
# whatever their index, so the held-aside third (index % 3 == 2 among the clauses above) stays exactly what it
# was, and no clause moves between the splits.
ROUND5 = """
my citizenship ceremony is booked for the spring | IM L Pe Ev
the embassy still has my passport for the visa stamp | IM L Pe
I'm here on my wife's visa until next year | IM L Pe Re
my settled status application went through | IM L Pe
the border officer questioned me for an hour about my visa | IM L Pe
my wife's green card came through last week | IM L Re
I renewed my gym membership yesterday | In
we fast from sunrise to sunset this month and break it with dates | R
my grandmother lights the Sabbath candles every friday | R Re
I've started going to evensong at the cathedral | R
my boss is a saint for covering my shift | Wo
I'm a devoted fan of the Lakers | In
I'm voting Green again this time | P
I joined a march for electoral reform last month | P Ev
my MP never answers my emails about the cuts | P
office politics are driving me mad | Wo
we voted on the team name at work | Wo
the party at my cousin's went on till 3am | Ev Re
I've got a second job to clear my credit card | M Wo
I moved my savings into a fixed-rate account | M
the bank of the river flooded again | Ge
I'd pay anything to see them live | In
I only told my best friend that I'm bi | S Pe Re
coming out to my grandad was easier than I thought | S Re
I came out of the meeting exhausted | Wo
our youngest starts reception in September | C Re Ev
my son refuses to do his homework | C Re
the kid at the checkout was so helpful | Ge
I'm the baby of the family | Pe Re
my solicitor sent the divorce papers to my ex | L Re
I have to appear in court as a witness next month | L Ev
I'm a paralegal at a big firm | Wo
the ref's decision was criminal | In
I'm staying at a hostel in Krakow till sunday | LOC Ev
we live above a bakery in Bristol | LOC Pe
the film was set in Paris | In
I love Thai food | In
my dad's blood pressure is through the roof | FH He Re
my sister is having chemo for the lymphoma | FH He Re
my dad is a doctor at the local hospital | Re
I'm taking my boss to tribunal over unpaid wages | ED Wo L M
HR ignored my complaint about being passed over for promotion | ED Wo
I'm on the interview panel for a new hire | Wo
I've been vegetarian since I was twelve | Pe
my knee's been swollen since the run | He
I'm a big fan of crime novels | In
we're off to my cousin's wedding in June | Ev Re
the clocks go back tonight | Ge
I'm an only child | Pe Re
I'm Brazilian but I've lived in Spain for years | Pe LOC
""".strip()


def _row(line: str) -> dict[str, Any]:
    text, labels = (part.strip() for part in line.rsplit("|", 1))
    about = [SHORT[label] for label in labels.split()]
    if not text or not about or len(set(about)) != len(about):
        raise ValueError(f"a clause needs text and distinct labels: {line!r}")
    return {"text": text, "about": about}


def build() -> dict[str, Any]:
    data = json.loads(OUT.read_text(encoding="utf-8"))
    kept = data["clauses"][:KEPT]
    new = [_row(line) for line in WRITTEN.splitlines() if line.strip()]
    new += [{**_row(line), "tuning": True} for line in ROUND5.splitlines() if line.strip()]
    texts = [c["text"].lower() for c in kept + new]
    if len(set(texts)) != len(texts):
        raise ValueError("a clause is written twice")
    topics = {"money": data["topics"]["money"], "religion": data["topics"]["religion"], **TOPICS}
    data["description"] = (
        "Clauses in ordinary chat speech, written for the policy screen's benchmark (bench/parts/policy_leaks.py; "
        "built by bench/data/policy_clauses_build.py: issue 33's 124 first, then issue 44's). `about`: every "
        "memory bank or free topic (of `topics`) the clause is about: excluding any of them must remove it, "
        "excluding any other must keep it. `topics`: the free topics with the examples a tenant's config would "
        "give. Every third clause (index % 3 == 2) is held aside: thresholds are chosen on the other two thirds only; "
        "a clause marked `tuning` (written later, appended) is a tuning clause whatever its index."
    )
    data["topics"] = topics
    data["clauses"] = kept + new
    return data


def main() -> None:
    data = build()
    with OUT.open("w", encoding="utf-8") as out:
        out.write("{\n")
        out.write(f'  "description": {json.dumps(data["description"])},\n')
        out.write(f'  "topics": {json.dumps(data["topics"], ensure_ascii=False)},\n')
        out.write('  "clauses": [\n')
        out.write(",\n".join(f"    {json.dumps(c, ensure_ascii=False)}" for c in data["clauses"]))
        out.write("\n  ]\n}\n")
    print(f"{len(data['clauses'])} clauses, {len(data['topics'])} free topics -> {OUT}")


if __name__ == "__main__":
    main()
