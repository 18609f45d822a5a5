/**
 * A second held-out set for the "current truth" benchmark (`memloom bench truth`, truth.ts),
 * written apart from the tune and check sets and never tuned on. Same shape as
 * truth-scenarios.ts: conversations in which a fact is stated, sometimes changed, and later
 * asked about, in domains the other sets touch little (a family's week, a sales pipeline, a
 * clinic front desk, a student, a home, travel, training, money, a software team).
 */
import type { TruthEvent, TruthScenario } from './truth-scenarios.js';

/** One session's turns, a minute apart from `start`; each turn starts with `u: ` (user) or `a: ` (assistant). */
function talk(user: string, id: string, start: string, turns: string[]): TruthEvent[] {
  return turns.map((turn, i) => {
    const role = turn.startsWith('u: ') ? 'user' : turn.startsWith('a: ') ? 'assistant' : undefined;
    if (!role) throw new Error(`a turn of session ${id} must start with "u: " or "a: ": ${turn.slice(0, 40)}`);
    return { user, session: id, at: new Date(Date.parse(start) + i * 60_000).toISOString(), role, content: turn.slice(3) };
  });
}

export const HOLDOUT_SCENARIOS: TruthScenario[] = [
  // ---------------------------------------------------------------- family
  {
    id: 'ho-family-pickup-day',
    set: 'check',
    about: 'the weekday a parent does school pickup changes, announced while the assistant asks about a reminder',
    events: [
      ...talk('maya', 's1', '2026-01-06T07:40:00Z', [
        "u: morning! can you help me sort out this week? it's chaos already",
        "a: Morning! Happy to. What's on the calendar?",
        'u: so the school run split is: I pick the kids up from Lincoln Elementary on Tuesdays, Dev handles every other day',
        "a: Got it — you're on pickup Tuesdays and Dev covers the other weekdays. Want a recurring reminder at 2:45 for it?",
        'u: yes please. also remind me to buy printer ink',
        'a: Done, both reminders are set.',
      ]),
      ...talk('maya', 's2', '2026-01-21T20:15:00Z', [
        'u: hey, quick one before I crash',
        "a: Sure, what's up?",
        'u: can you draft a note to Ms. Farrow saying Zoe will miss Friday for a dentist appointment',
        'a: Here\'s a draft: "Dear Ms. Farrow, Zoe will be absent this Friday because of a dentist appointment. Thank you, Maya."',
        'u: perfect thanks',
      ]),
      ...talk('maya', 's3', '2026-02-03T12:30:00Z', [
        'a: Hi Maya — your 2:45 Tuesday pickup reminder fires today. Keep it as is?',
        "u: oh shoot, kill that one. Dev's new shift means I'm the one grabbing the kids on Thursdays from now on",
        "a: Understood. I've removed the Tuesday reminder and set a 2:45 pickup reminder for Thursdays instead.",
        'u: thank you!! is it supposed to rain later this week btw',
        "a: Light rain is in the forecast for the second half of the week, so an umbrella in the car wouldn't hurt.",
      ]),
      ...talk('maya', 's4', '2026-02-10T18:05:00Z', [
        'u: can you find me a sheet pan dinner the kids will actually eat',
        'a: How about sheet-pan chicken fajitas? Twenty minutes in the oven and everyone builds their own.',
        'u: ooh yes, send me the shopping list',
        'a: Chicken thighs, three bell peppers, an onion, tortillas, fajita seasoning, sour cream and shredded cheese.',
        'u: lifesaver',
      ]),
    ],
    questions: [
      {
        user: 'maya',
        query: 'Which afternoon do I collect the children from school?',
        current: ['Thursday'],
        stale: ['Tuesday'],
        as_of: [
          { at: '2026-01-25T00:00:00Z', expect: ['Tuesday'], not: ['Thursday'] },
          { at: '2026-02-08T00:00:00Z', expect: ['Thursday'] },
        ],
      },
      { user: 'maya', query: 'When is bedtime?', never_said: true },
    ],
  },
  {
    id: 'ho-family-sitter-chain',
    set: 'check',
    about: 'the babysitter changes twice (a chain of three), the last time mentioned while planning a date night',
    events: [
      ...talk('jess', 's1', '2025-09-05T19:00:00Z', [
        "u: hi! we've got a wedding on the 20th and need someone for the kids",
        'a: How fun! Do you have a regular babysitter I should check with first?',
        "u: yeah our sitter is Hannah Cole, she's a junior at the high school down the street",
        'a: Great. Want me to text Hannah about the 20th?',
        'u: yes, and ask if she can stay until midnight',
        "a: Sent. I'll let you know when she replies.",
      ]),
      ...talk('jess', 's2', '2025-10-14T18:30:00Z', [
        "u: ugh, Hannah got a job at the movie theater and can't do weekends anymore",
        'a: Oh no. Have you found someone else, or should I ask around the neighborhood group?',
        'u: kind of — a mom from swim recommended Lucia Ferreira and the kids loved her last Saturday. she is our go-to now',
        'a: Lovely. Saving Lucia Ferreira as your babysitter. Do you have a number for her?',
        'u: 555-0148',
        'a: Saved.',
      ]),
      ...talk('jess', 's3', '2025-11-08T10:00:00Z', [
        'u: what can I make for a potluck that travels well',
        'a: A baked ziti or a big grain salad both hold up in a car and feed a crowd.',
        'u: ziti it is. thx',
      ]),
      ...talk('jess', 's4', '2025-12-02T21:10:00Z', [
        'u: can you help me plan something for our anniversary?',
        'a: Of course! Dinner, a show, something low-key at home?',
        "u: dinner at the Thai place on Main, 7pm on the 12th. Grace Whitfield from two doors down is watching the kids that night — Lucia's spending the winter in Portugal with her family, so Grace is who we'll call from now on",
        "a: Sounds lovely. I've noted the 7pm reservation on the 12th, and I'll list Grace Whitfield as your babysitter going forward.",
        'u: you rock',
      ]),
    ],
    questions: [
      {
        user: 'jess',
        query: 'Who can I ask to watch the kids on Saturday night?',
        current: ['Grace'],
        stale: ['Hannah', 'Lucia'],
        as_of: [
          { at: '2025-09-20T00:00:00Z', expect: ['Hannah'], not: ['Lucia', 'Grace'] },
          { at: '2025-11-01T00:00:00Z', expect: ['Lucia'], not: ['Grace'] },
          { at: '2025-12-05T00:00:00Z', expect: ['Grace'] },
        ],
      },
      { user: 'jess', query: 'Who is our pediatrician?', never_said: true },
    ],
  },
  {
    id: 'ho-family-allergy-control',
    set: 'check',
    about: "a child's food allergy and the party venue, each said once amid birthday-party planning; never changed",
    events: [
      ...talk('carmen', 's1', '2026-03-02T16:00:00Z', [
        "u: hiya, Mateo turns seven next month and I'm starting to plan the party",
        'a: Fun! How many kids are you thinking, and at home or somewhere else?',
        'u: probably 12 kids at the trampoline park. oh and heads up for anything food related: Mateo has a tree nut allergy, we carry an EpiPen',
        "a: Thanks for telling me — I'll keep tree nuts out of anything I suggest for him. Trampoline park for 12 it is.",
        'u: can you look up prices for Jump Zone on Route 9',
        "a: Jump Zone's party packages start at $280 for up to 10 jumpers, plus $22 per extra child.",
      ]),
      ...talk('carmen', 's2', '2026-03-09T17:20:00Z', [
        'u: the invites went out!',
        'a: Nice! Any RSVPs yet?',
        'u: eight yes, two maybe. what should go in the goodie bags?',
        'a: Bubbles, stickers, a small bouncy ball and a glow bracelet would fit the theme.',
        "u: love it. can you add 'order cake' to my list",
        'a: Added "order cake" to your to-do list.',
      ]),
      ...talk('carmen', 's3', '2026-03-20T15:45:00Z', [
        'u: need a playlist, kid friendly and upbeat',
        'a: Here\'s a start: "Happy", "Can\'t Stop the Feeling!", "Shake It Off", "Roar" and the radio edit of "Uptown Funk".',
        'u: add some Encanto songs too',
        'a: Added "We Don\'t Talk About Bruno" and "Surface Pressure".',
        "u: you're the best",
        'a: Happy to help — hope Mateo has a blast!',
      ]),
    ],
    questions: [
      { user: 'carmen', query: 'Is there anything my son must not eat?', current: ['tree nut'] },
      { user: 'carmen', query: 'Where are we holding the birthday?', current: ['trampoline', 'Jump Zone'] },
      { user: 'carmen', query: "What's my husband called?", never_said: true },
    ],
  },
  {
    id: 'ho-family-pediatrician',
    set: 'check',
    about: "the child's pediatrician changes because the old one retired (a change about a third party)",
    events: [
      ...talk('nina', 's1', '2025-11-04T10:00:00Z', [
        "u: can you set up a reminder for Ava's 4-year checkup",
        "a: Sure — who's her pediatrician, so I can put the office on the reminder?",
        'u: Dr. Patel at Riverside Pediatrics',
        "a: Got it: Ava's 4-year checkup with Dr. Patel at Riverside Pediatrics. What date?",
        'u: the 18th at 9:30',
        'a: Done — November 18, 9:30am.',
      ]),
      ...talk('nina', 's2', '2025-12-10T14:00:00Z', [
        'u: did you see the snow forecast?',
        'a: Yes, 4–6 inches expected Friday. Want me to move anything on your calendar?',
        "u: no we're fine. can you reorder the gummy vitamins from the usual place",
        "a: Reordered; they'll arrive Tuesday.",
      ]),
      ...talk('nina', 's3', '2026-01-15T09:10:00Z', [
        'u: got a letter from Riverside today. Dr. Patel retired at the end of December and Ava has been reassigned to Dr. Okafor, same office',
        "a: Thanks for the update. I'll list Dr. Okafor at Riverside Pediatrics as Ava's doctor.",
        'u: she has a cough again, can you see if Okafor has anything tomorrow morning',
        'a: Riverside has a 10:15 tomorrow with Dr. Okafor. Shall I book it?',
        'u: yes please',
        'a: Booked.',
      ]),
    ],
    questions: [
      {
        user: 'nina',
        query: 'Which doctor does my daughter see for checkups?',
        current: ['Okafor'],
        stale: ['Patel'],
        as_of: [
          { at: '2025-12-01T00:00:00Z', expect: ['Patel'], not: ['Okafor'] },
          { at: '2026-01-20T00:00:00Z', expect: ['Okafor'] },
        ],
      },
    ],
  },
  {
    id: 'ho-family-piano-reversal',
    set: 'check',
    about: 'a lesson moves to another weekday and then back again (a reversal); another activity stays put',
    events: [
      ...talk('li', 's1', '2026-02-02T18:00:00Z', [
        "u: hi, can you help me keep track of the kids' activities this semester",
        "a: Absolutely. What's on the schedule?",
        'u: Ethan has piano with Mrs. Kowalski on Mondays at 4:30, and Sophie has Girl Scouts every other Thursday',
        'a: Got it: Ethan — piano, Mondays 4:30 with Mrs. Kowalski; Sophie — Girl Scouts, every other Thursday.',
        'u: thanks!',
      ]),
      ...talk('li', 's2', '2026-02-17T19:30:00Z', [
        "u: small change, Mrs. Kowalski is moving Ethan's lesson to Wednesdays at 5 starting next week",
        "a: Updated: Ethan's piano is now Wednesdays at 5:00.",
        "u: cool. what's a good snack to bring for the troop",
        'a: Clementines and cheese sticks are easy for a group.',
      ]),
      ...talk('li', 's3', '2026-02-24T08:15:00Z', [
        'u: scratch the piano change — her Wednesday student backed out, so Ethan is back in his old Monday 4:30 slot',
        "a: Okay, Ethan's piano is back on Mondays at 4:30; I've dropped the Wednesday entry.",
        'u: also remind me to return the library books',
        'a: Reminder set for Saturday morning.',
      ]),
    ],
    questions: [
      {
        user: 'li',
        query: "What day is Ethan's music lesson?",
        current: ['Monday'],
        stale: ['Wednesday'],
        as_of: [
          { at: '2026-02-20T00:00:00Z', expect: ['Wednesday'], not: ['Monday'] },
          { at: '2026-02-26T00:00:00Z', expect: ['Monday'] },
        ],
      },
      { user: 'li', query: 'How often does Sophie have her troop meeting?', current: ['every other Thursday'] },
    ],
  },
  {
    id: 'ho-family-two-parents',
    set: 'check',
    about: 'two parents, each with their own carpool day and dentist; each one’s values are stale for the other',
    events: [
      ...talk('rosa', 'r1', '2025-09-08T07:30:00Z', [
        'u: good morning! school started, can you help me set up the carpool rotation',
        'a: Good morning! Sure — which day are you driving?',
        "u: I've got Mondays, four kids in the minivan",
        "a: Noted: you drive the carpool on Mondays. I'll remind you Sunday evenings to gas up.",
        'u: perfect',
      ]),
      ...talk('ben', 'b1', '2025-09-09T12:10:00Z', [
        'u: hey, can you keep track of carpool for me',
        'a: Happy to. Which day is yours?',
        'u: I drive Wednesdays. the Hendersons cover the rest',
        'a: Noted: you drive the carpool on Wednesdays.',
      ]),
      ...talk('rosa', 'r2', '2025-09-15T20:00:00Z', [
        'u: the kids need cleanings before October',
        'a: Which dental office do they go to?',
        'u: Bright Smiles Family Dental on 4th',
        "a: I'll look for openings at Bright Smiles Family Dental in late September.",
        'u: thanks, after 3pm ideally',
      ]),
      ...talk('ben', 'b2', '2025-09-18T09:45:00Z', [
        'u: can you book the boys a dental cleaning',
        'a: Sure — which practice?',
        'u: Harbor Dental, Dr. Yee',
        'a: Harbor Dental has a double slot on October 2 at 4pm. Book it?',
        'u: yep',
      ]),
    ],
    questions: [
      { user: 'rosa', query: 'Which morning is my turn to drive the kids?', current: ['Monday'], stale: ['Wednesday'] },
      { user: 'ben', query: 'Which morning is my turn to drive the kids?', current: ['Wednesday'], stale: ['Monday'] },
      { user: 'rosa', query: 'Where do the kids get their teeth cleaned?', current: ['Bright Smiles'], stale: ['Harbor'] },
      { user: 'ben', query: 'Where do the kids get their teeth cleaned?', current: ['Harbor'], stale: ['Bright Smiles'] },
    ],
  },
  // ---------------------------------------------------------------- sales / CRM
  {
    id: 'ho-crm-deal-stage',
    set: 'check',
    about: "a deal's pipeline stage moves twice (a chain of three), the last one said in passing",
    events: [
      ...talk('alex', 's1', '2026-01-08T15:00:00Z', [
        'u: morning. logging a new opp: Kestrel Foods, 40 seats of the analytics tier',
        'a: Logged Kestrel Foods — 40 seats, analytics tier. What stage should I put it in?',
        'u: discovery for now, first call was yesterday',
        "a: Set to Discovery. What's the next step?",
        'u: demo with their ops lead next week',
        "a: I'll pencil in a reminder to schedule it.",
      ]),
      ...talk('alex', 's2', '2026-01-22T16:40:00Z', [
        'u: Kestrel update — the demo went great and we sent over the proposal this afternoon',
        'a: Nice! Moving Kestrel Foods to Proposal Sent.',
        'u: remind me to follow up in a week',
        'a: Reminder set for January 29.',
      ]),
      ...talk('alex', 's3', '2026-02-12T11:05:00Z', [
        "u: hey, crazy day. Kestrel's legal team is redlining the MSA and they want 10% off, so we're in negotiation now — anyway what's on my calendar this afternoon",
        "a: I've updated Kestrel Foods to Negotiation. This afternoon: 1:00 pipeline review, 3:30 call with Dunmore Co.",
        'u: can you push Dunmore to 4',
        'a: Moved to 4:00 and sent them the update.',
      ]),
    ],
    questions: [
      {
        user: 'alex',
        query: 'Where do things stand with the Kestrel opportunity?',
        current: ['negotiation'],
        stale: ['discovery', 'proposal'],
        as_of: [
          { at: '2026-01-15T00:00:00Z', expect: ['discovery'], not: ['proposal', 'negotiation'] },
          { at: '2026-02-01T00:00:00Z', expect: ['proposal'], not: ['negotiation'] },
          { at: '2026-02-14T00:00:00Z', expect: ['negotiation'] },
        ],
      },
      { user: 'alex', query: 'Where is the offsite?', never_said: true },
    ],
  },
  {
    id: 'ho-crm-contact-implicit',
    set: 'check',
    about: "a client's point of contact changes with no change word, just a new entry",
    events: [
      ...talk('sam', 's1', '2025-10-06T14:00:00Z', [
        'u: hi! can you help me prep for the Brightline Logistics QBR',
        'a: Sure. Who are we meeting with?',
        'u: our main contact over there is Marcus Webb, he runs their fleet ops',
        'a: Noted — Marcus Webb, fleet operations, is your contact at Brightline Logistics. Want a one-page account summary?',
        'u: yes, with their usage numbers from Q3',
        'a: Draft ready: usage up 18% quarter over quarter and 3 open tickets.',
      ]),
      ...talk('sam', 's2', '2025-11-03T09:30:00Z', [
        'u: thanks for the deck last month, the meeting went well',
        'a: Glad to hear it!',
        'u: can you find a good lunch spot near the Dunmore office for next Thursday',
        "a: Try Marlow's Kitchen — six minutes' walk, good reviews, takes reservations.",
      ]),
      ...talk('sam', 's3', '2025-12-01T10:20:00Z', [
        'u: ok cleaning up my accounts. Brightline — point of contact: Aisha Rahman, VP Operations, aisha.rahman@brightline.io',
        'a: Updated Brightline Logistics: Aisha Rahman, VP Operations, aisha.rahman@brightline.io.',
        'u: and give me a short intro email I can send her',
        'a: "Hi Aisha, great to connect — I\'d love 20 minutes to walk through how your team is using the platform and what\'s ahead for 2026."',
        'u: good enough, thanks',
      ]),
    ],
    questions: [
      {
        user: 'sam',
        query: 'Who should I email at Brightline?',
        current: ['Aisha', 'Rahman'],
        stale: ['Marcus', 'Webb'],
        as_of: [
          { at: '2025-11-15T00:00:00Z', expect: ['Marcus'], not: ['Aisha'] },
          { at: '2025-12-03T00:00:00Z', expect: ['Aisha'] },
        ],
      },
      { user: 'sam', query: "What's my commission rate?", never_said: true },
    ],
  },
  {
    id: 'ho-crm-contract-value',
    set: 'check',
    about: "a contract's annual value grows, mentioned in passing while talking about quota",
    events: [
      ...talk('tara', 's1', '2025-08-12T17:30:00Z', [
        'u: HELIX SIGNED',
        "a: Congratulations!! Tell me the details and I'll log it.",
        'u: Helix Biotech, $48k a year, two-year term, starts September 1',
        'a: Logged: Helix Biotech, $48k annual contract value, two-year term starting September 1.',
        'u: can you draft a thank-you note to their CFO',
        "a: Here's a draft thanking them for the partnership and confirming the kickoff on September 1.",
      ]),
      ...talk('tara', 's2', '2025-09-30T08:50:00Z', [
        'u: ugh, expense report time',
        'a: I can help. Do you have the receipts as photos?',
        "u: yeah, I'll upload them tonight",
        "a: Sounds good, I'll sort them by trip when they come in.",
      ]),
      ...talk('tara', 's3', '2025-11-18T13:15:00Z', [
        "u: quick sanity check on my number — with Helix going up to $62k a year after they added the two Boston labs, I'm at 105% of quota, right?",
        "a: Yes — with Helix at $62k annually you're at 105% of quota for the year.",
        'u: nice. book me somewhere nice for the team dinner friday',
        'a: Reserved a table for six at Alder & Oak at 7:30 Friday.',
      ]),
    ],
    questions: [
      {
        user: 'tara',
        query: 'How much is the Helix account worth per year?',
        current: ['62k'],
        stale: ['48k'],
        as_of: [
          { at: '2025-10-01T00:00:00Z', expect: ['48k'], not: ['62k'] },
          { at: '2025-11-20T00:00:00Z', expect: ['62k'] },
        ],
      },
    ],
  },
  {
    id: 'ho-crm-renewal-correction',
    set: 'check',
    about: 'a renewal date is corrected a few days after it was given ("I misspoke")',
    events: [
      ...talk('devon', 's1', '2025-11-20T16:00:00Z', [
        'u: hey, can you track renewals for my book of business',
        'a: Sure. Which one first?',
        'u: Orion Media renewal date is May 15, I want to start the conversation 90 days out',
        "a: Logged: Orion Media renews May 15. I'll remind you in mid-February to open the renewal conversation.",
        'u: great',
      ]),
      ...talk('devon', 's2', '2025-11-25T10:40:00Z', [
        'u: morning',
        'a: Morning! What can I do for you?',
        "u: sorry, I misspoke last week — Orion renews March 15, not May. their fiscal year starts in April so it's earlier",
        'a: Thanks for catching that. Orion Media now renews March 15, so the outreach reminder moves to mid-December.',
        'u: 👍 and remind me to call my mom tonight',
        'a: Reminder set for 7pm.',
      ]),
      ...talk('devon', 's3', '2025-12-03T15:20:00Z', [
        'u: can you summarize my Q4 pipeline in three bullets',
        'a: Three deals in late stage worth $210k total, two renewals to open this month, and one at-risk account flagged by support.',
        'u: thx',
      ]),
    ],
    questions: [
      {
        user: 'devon',
        query: "When does Orion's contract come up?",
        current: ['March 15'],
        stale: ['May 15'],
        as_of: [
          { at: '2025-11-22T00:00:00Z', expect: ['May 15'], not: ['March 15'] },
          { at: '2025-11-28T00:00:00Z', expect: ['March 15'] },
        ],
      },
    ],
  },
  {
    id: 'ho-crm-two-reps',
    set: 'check',
    about: "two sales reps, each with their own territory and manager; each one's values are stale for the other",
    events: [
      ...talk('jordan', 'j1', '2026-01-05T16:00:00Z', [
        "u: hi, I'm new on the team, setting you up",
        "a: Welcome! Tell me about your role and I'll remember the basics.",
        'u: I cover the Pacific Northwest, mostly outdoor retail accounts. I report to Rachel Stone',
        'a: Got it: territory Pacific Northwest, outdoor retail focus, manager Rachel Stone.',
        'u: cool, thanks',
      ]),
      ...talk('kim', 'k1', '2026-01-06T09:20:00Z', [
        'u: morning! can you help me organize my accounts',
        'a: Sure. Which region are they in?',
        'u: my patch is the Southeast, marine and boating companies. my manager is Luis Ortega',
        'a: Noted: Southeast territory, marine and boating, manager Luis Ortega.',
      ]),
      ...talk('jordan', 'j2', '2026-01-14T11:00:00Z', [
        'u: can you find me a good CRM keyboard shortcut cheat sheet',
        "a: Here's a one-page list of the shortcuts for logging calls, creating tasks and switching views.",
        'u: life saver',
      ]),
      ...talk('kim', 'k2', '2026-01-15T14:30:00Z', [
        'u: remind me to ask my manager about the spiff for Q1',
        'a: Reminder set for your 1:1 with Luis on Thursday.',
        'u: ty',
      ]),
    ],
    questions: [
      { user: 'jordan', query: 'Which region is mine?', current: ['Pacific Northwest'], stale: ['Southeast'] },
      { user: 'kim', query: 'Which region is mine?', current: ['Southeast'], stale: ['Pacific Northwest'] },
      { user: 'jordan', query: 'Who is my boss?', current: ['Rachel'], stale: ['Luis'] },
      { user: 'kim', query: 'Who is my boss?', current: ['Luis'], stale: ['Rachel'] },
    ],
  },
  {
    id: 'ho-crm-channel-late',
    set: 'check',
    about: "a client's preferred update channel changes; an older note about the old channel arrives late",
    events: [
      ...talk('morgan', 's1', '2026-02-03T10:00:00Z', [
        'u: new client onboarding: Vantage Health',
        'a: Great. Anything I should know about how they like to work?',
        'u: they want a weekly status update by email, Fridays before noon, to their PMO inbox',
        'a: Noted: Vantage Health gets a weekly status update by email every Friday before 12.',
        'u: yep',
      ]),
      ...talk('morgan', 's2', '2026-03-10T15:30:00Z', [
        'u: heads up, Vantage asked us to move all updates into a shared Slack Connect channel, no more email threads',
        "a: Understood — Vantage Health's updates go to the shared Slack Connect channel from now on.",
        'u: can you also draft the kickoff agenda for Thursday',
        'a: Draft: intros, goals for Q2, timeline review, risks, next steps.',
      ]),
      ...talk('morgan', 's3', '2026-02-20T16:45:00Z', [
        'u: sent Vantage their Friday update by email, Dana from their PMO replied with thanks',
        "a: Nice, I'll mark this week's update as delivered.",
      ]),
      ...talk('morgan', 's4', '2026-03-16T09:10:00Z', [
        'u: happy monday. what are my top 3 priorities',
        "a: Finish the Vantage kickoff deck, review the Ridgeway SOW, and prep for Wednesday's forecast call.",
        'u: thanks',
      ]),
    ],
    questions: [
      {
        user: 'morgan',
        query: 'How does the Vantage team want to hear from us each week?',
        current: ['Slack'],
        stale: ['email'],
        as_of: [
          { at: '2026-02-25T00:00:00Z', expect: ['email'], not: ['Slack'] },
          { at: '2026-03-12T00:00:00Z', expect: ['Slack'] },
        ],
      },
    ],
  },
  // ---------------------------------------------------------------- clinic
  {
    id: 'ho-clinic-patient-time',
    set: 'check',
    about: "a patient's preferred appointment time changes, told in answer to the assistant's question",
    events: [
      ...talk('gwen', 's1', '2026-01-13T08:10:00Z', [
        "u: good morning, let's set up follow-ups from yesterday",
        'a: Good morning! Who is first?',
        'u: Mr. Haddad, blood pressure follow-up in 4 weeks. he likes the 8am slots, first thing before work',
        "a: Booked Mr. Haddad for a blood pressure follow-up on February 10 at 8am. I'll keep his preference for 8am in mind.",
        'u: then Ms. Greene, 2 weeks, any time',
        'a: Ms. Greene is booked for January 27 at 10:20.',
      ]),
      ...talk('gwen', 's2', '2026-02-02T12:00:00Z', [
        'u: can you pull the list of patients due for flu shots',
        'a: There are 14 patients overdue. Want me to send reminder texts?',
        'u: yes, use the standard template',
        'a: Sent to all 14.',
      ]),
      ...talk('gwen', 's3', '2026-02-24T09:00:00Z', [
        'a: Mr. Haddad needs another follow-up in March. Should I hold an 8am for him again?',
        "u: no — he called last week, he's on a new work schedule and afternoons after 3 suit him better now",
        "a: Got it. I've updated his preference to afternoons after 3 and booked March 10 at 3:30.",
        'u: great. also the printer in room 2 is jammed again, can you put in a ticket',
        'a: Ticket submitted to facilities.',
      ]),
    ],
    questions: [
      {
        user: 'gwen',
        query: 'What time of day should I offer Mr. Haddad?',
        current: ['after 3'],
        stale: ['8am'],
        as_of: [
          { at: '2026-02-01T00:00:00Z', expect: ['8am'], not: ['after 3'] },
          { at: '2026-02-26T00:00:00Z', expect: ['after 3'] },
        ],
      },
    ],
  },
  {
    id: 'ho-clinic-on-duty',
    set: 'check',
    about: 'the doctor on duty at a clinic changes because the scheduled one is out sick (third party)',
    events: [
      ...talk('omari', 's1', '2026-04-06T07:45:00Z', [
        'u: morning. staffing for Eastside this week: Dr. Lindqvist is the physician on duty Monday through Friday',
        'a: Noted — Dr. Lindqvist is on duty at Eastside this week.',
        'u: and we have two MAs, Jo and Tricia',
        'a: Got it, Jo and Tricia are the medical assistants.',
      ]),
      ...talk('omari', 's2', '2026-04-08T06:55:00Z', [
        'u: ugh. Lindqvist called out sick, Dr. Mensah is covering Eastside the rest of the week',
        "a: Sorry to hear it. I've updated Eastside: Dr. Mensah covers through Friday.",
        'u: can you let the front desk know',
        'a: Sent a message to the front desk group.',
      ]),
      ...talk('omari', 's3', '2026-04-09T13:20:00Z', [
        'u: we are low on exam table paper and nitrile gloves size M',
        "a: I'll add both to the supply order. Rush or regular delivery?",
        'u: regular is fine',
        'a: Added to the order going out Friday.',
      ]),
    ],
    questions: [
      {
        user: 'omari',
        query: 'Which doctor is working at Eastside right now?',
        current: ['Mensah'],
        stale: ['Lindqvist'],
        as_of: [
          { at: '2026-04-07T00:00:00Z', expect: ['Lindqvist'], not: ['Mensah'] },
          { at: '2026-04-09T00:00:00Z', expect: ['Mensah'] },
        ],
      },
      { user: 'omari', query: 'Who are the MAs this week?', current: ['Tricia'] },
    ],
  },
  {
    id: 'ho-clinic-room-late',
    set: 'check',
    about: 'flu shots move to another room; a note from before the move arrives late; who runs it never changes',
    events: [
      ...talk('ruth', 's1', '2025-10-01T08:00:00Z', [
        'u: hi! flu season setup: shots are being given in Room 4 this year, nurse Kelly Park runs it',
        'a: Noted — flu shots in Room 4, run by nurse Kelly Park.',
        'u: walk-ins 9 to 11 every weekday',
        'a: Got it, walk-ins 9–11 weekdays.',
      ]),
      ...talk('ruth', 's2', '2025-10-20T07:50:00Z', [
        'u: heads up, facilities is doing vent work in that wing, so flu shots are in Room 7 from today',
        'a: Updated: flu shots are now given in Room 7.',
        'u: can you update the sign template too',
        'a: Here\'s the new sign text: "Flu shots → Room 7, walk-ins 9–11."',
      ]),
      ...talk('ruth', 's3', '2025-10-10T11:30:00Z', [
        'u: busy morning, sent twelve people down to Room 4 for their flu shots',
        "a: That's a lot! I'll log twelve walk-ins for today.",
      ]),
      ...talk('ruth', 's4', '2025-10-28T14:15:00Z', [
        'u: what do I say to a patient asking whether they can get covid and flu shots together',
        'a: Per CDC guidance they can be given at the same visit, in different arms if possible; they should ask the nurse about their own history.',
        'u: thanks',
      ]),
    ],
    questions: [
      {
        user: 'ruth',
        query: 'Where do I send people for a flu jab?',
        current: ['Room 7'],
        stale: ['Room 4'],
        as_of: [
          { at: '2025-10-15T00:00:00Z', expect: ['Room 4'], not: ['Room 7'] },
          { at: '2025-10-22T00:00:00Z', expect: ['Room 7'] },
        ],
      },
      { user: 'ruth', query: 'Which nurse is in charge of the vaccine clinic?', current: ['Kelly'] },
    ],
  },
  {
    id: 'ho-clinic-patient-notes-control',
    set: 'check',
    about: "patients' standing preferences said once among front-desk chores; nothing changes",
    events: [
      ...talk('irene', 's1', '2026-02-09T08:30:00Z', [
        'u: good morning! a few patient notes to keep',
        'a: Good morning, go ahead.',
        "u: Mrs. Ortiz — send her refills to the Walgreens on Elm Street, and she'd rather get a phone call than a text",
        'a: Saved: Mrs. Ortiz, Walgreens on Elm Street for prescriptions, prefers phone calls over texts.',
        'u: Mr. Bauer needs a wheelchair at check-in, his knee surgery was last month',
        'a: Saved: Mr. Bauer needs a wheelchair ready at check-in.',
      ]),
      ...talk('irene', 's2', '2026-02-16T10:10:00Z', [
        'u: is Blue Shield PPO in network for us?',
        'a: Yes, Blue Shield PPO is in network; HMO plans need a referral on file.',
        "u: ok. and can you print tomorrow's schedule",
        'a: Sent to the front desk printer.',
      ]),
      ...talk('irene', 's3', '2026-02-23T15:40:00Z', [
        'u: the waiting room tv is stuck on the weather channel lol',
        'a: Classic. Want me to submit a facilities ticket?',
        "u: nah, I'll just unplug it. what's the holiday schedule for Presidents Day",
        'a: The clinic was closed Monday the 16th and reopened the 17th.',
      ]),
    ],
    questions: [
      { user: 'irene', query: "Which drugstore gets Mrs. Ortiz's prescriptions?", current: ['Walgreens'] },
      { user: 'irene', query: 'Anything to prepare before Mr. Bauer arrives?', current: ['wheelchair'] },
      { user: 'irene', query: 'What is the parking validation stamp?', never_said: true },
    ],
  },
  // ---------------------------------------------------------------- student
  {
    id: 'ho-student-advisor',
    set: 'check',
    about: 'the thesis advisor changes because the old one is leaving (third party); the thesis topic does not',
    events: [
      ...talk('kai', 's1', '2025-09-10T21:00:00Z', [
        'u: hey! starting my senior thesis this year, can you help me stay organized',
        "a: Of course. What's it about, and who's supervising?",
        "u: it's on housing policy and displacement in mid-size cities. my thesis advisor is Prof. Brennan in the sociology dept",
        'a: Got it: thesis on housing policy and displacement, advised by Prof. Brennan in sociology.',
        'u: meetings every other Tuesday',
        "a: I'll put biweekly Tuesday meetings on your calendar.",
      ]),
      ...talk('kai', 's2', '2025-10-02T19:30:00Z', [
        'u: can you suggest 5 readings on gentrification for my lit review',
        'a: Start with Desmond\'s "Evicted", Lees, Slater & Wyly\'s "Gentrification", Freeman\'s "There Goes the \'Hood", Zukin\'s "Naked City" and Hwang\'s articles on neighborhood change.',
        'u: amazing thank you',
      ]),
      ...talk('kai', 's3', '2025-11-18T17:05:00Z', [
        'u: big news — Brennan is leaving for a position at ETH in January, so Prof. Nakamura agreed to take over supervising my thesis',
        "a: That's a big change, but good that it's settled. I've updated your thesis supervisor to Prof. Nakamura.",
        'u: first meeting with her is Monday at 2',
        'a: Added to your calendar.',
      ]),
    ],
    questions: [
      {
        user: 'kai',
        query: 'Who is supervising my research project?',
        current: ['Nakamura'],
        stale: ['Brennan'],
        as_of: [
          { at: '2025-10-15T00:00:00Z', expect: ['Brennan'], not: ['Nakamura'] },
          { at: '2025-11-20T00:00:00Z', expect: ['Nakamura'] },
        ],
      },
      { user: 'kai', query: 'What topic am I writing my senior paper on?', current: ['housing'] },
    ],
  },
  {
    id: 'ho-student-exam-correction',
    set: 'check',
    about: 'an exam date is corrected a few days later',
    events: [
      ...talk('zoe', 's1', '2025-11-28T22:00:00Z', [
        'u: finals schedule is out 😭',
        "a: Let's get it into your calendar. What do you have?",
        'u: orgo final is December 12, 8am in Lecture Hall B. the rest are take-home',
        'a: Added: Organic Chemistry final, December 12 at 8am, Lecture Hall B.',
        'u: ok good night',
      ]),
      ...talk('zoe', 's2', '2025-12-01T11:15:00Z', [
        'u: WAIT I read the schedule wrong, the orgo final is December 9, not the 12th. so I have even less time lol',
        'a: Yikes — fixed. Your Organic Chemistry final is December 9 at 8am in Lecture Hall B. Want me to rebuild the study plan?',
        'u: yes pls',
        "a: Here's a plan: reactions and mechanisms today and tomorrow, spectroscopy Wednesday and Thursday, practice exams over the weekend.",
      ]),
      ...talk('zoe', 's3', '2025-12-04T15:00:00Z', [
        "u: what are good snacks for studying that aren't just candy",
        'a: Apple slices with peanut butter, trail mix, Greek yogurt, hummus with carrots.',
        'u: ok thanks mom',
        'a: 😄 Good luck!',
      ]),
    ],
    questions: [
      {
        user: 'zoe',
        query: 'When is my chemistry exam?',
        current: ['December 9'],
        stale: ['December 12'],
        as_of: [
          { at: '2025-11-30T00:00:00Z', expect: ['December 12'], not: ['December 9'] },
          { at: '2025-12-02T00:00:00Z', expect: ['December 9'] },
        ],
      },
    ],
  },
  {
    id: 'ho-student-job-passing',
    set: 'check',
    about: 'the part-time job changes, mentioned in passing while asking for help with something else',
    events: [
      ...talk('diego', 's1', '2025-09-15T18:20:00Z', [
        'u: hi, can you help me plan my week around work',
        'a: Sure. When do you work?',
        'u: I have a campus job at the library circulation desk Tuesday and Thursday evenings, 6 to 10',
        "a: Got it — library circulation desk, Tuesdays and Thursdays 6–10pm. I'll keep those blocked.",
        'u: thanks',
      ]),
      ...talk('diego', 's2', '2025-10-20T20:45:00Z', [
        'u: how do I cite a podcast in APA',
        'a: Host, A. (Host). (Year, Month Day). Episode title (No. X) [Audio podcast episode]. In Podcast Name. Publisher. URL',
        'u: perfect',
      ]),
      ...talk('diego', 's3', '2025-11-10T16:00:00Z', [
        "u: can you help me with this physics lab report tonight? ever since I quit the library and started tutoring at the Writing Center my evenings are free, so I've got time",
        "a: Sure, and noted — you tutor at the Writing Center now. What's the lab about?",
        'u: measuring g with a pendulum',
        "a: Great. Let's start with the intro: state the purpose, the small-angle approximation, and your hypothesis.",
      ]),
    ],
    questions: [
      {
        user: 'diego',
        query: 'Where do I work part time?',
        current: ['Writing Center', 'tutoring'],
        stale: ['circulation', 'library'],
        as_of: [
          { at: '2025-10-01T00:00:00Z', expect: ['circulation', 'library'], not: ['Writing Center'] },
          { at: '2025-11-12T00:00:00Z', expect: ['Writing Center'] },
        ],
      },
      { user: 'diego', query: "What's my GPA?", never_said: true },
    ],
  },
  {
    id: 'ho-student-course-dropped',
    set: 'check',
    about: 'a course is dropped ("not doing X anymore") and another takes its slot',
    events: [
      ...talk('amara', 's1', '2026-01-12T23:00:00Z', [
        'u: first week of spring semester, help me set up my calendar',
        'a: Happy to! What classes are you taking?',
        'u: Microeconomics with Prof. Gill at 9am Mon/Wed/Fri, then Linear Algebra at 11 and a bio lab Thursday afternoons',
        'a: Added: Microeconomics 9am MWF, Linear Algebra 11am, bio lab Thursday afternoons.',
      ]),
      ...talk('amara', 's2', '2026-01-20T12:30:00Z', [
        "u: what's a good app for flashcards",
        'a: Anki is free and great for spaced repetition; Quizlet is easier to start with.',
        "u: ok I'll try anki",
      ]),
      ...talk('amara', 's3', '2026-01-26T19:10:00Z', [
        "u: update: I'm not taking micro anymore, it was way too much with lab. the 9am slot is now Intro to Statistics with Dr. Park, so I'm still full time",
        'a: Updated your 9am Mon/Wed/Fri class to Intro to Statistics with Dr. Park.',
        'u: thank you!!',
      ]),
    ],
    questions: [
      {
        user: 'amara',
        query: 'Which class do I have first thing on Mondays?',
        current: ['Statistics'],
        stale: ['Microeconomics'],
        as_of: [{ at: '2026-01-22T00:00:00Z', expect: ['Microeconomics'], not: ['Statistics'] }],
      },
      { user: 'amara', query: "What's my dorm number?", never_said: true },
    ],
  },
  // ---------------------------------------------------------------- home
  {
    id: 'ho-home-isp-qa',
    set: 'check',
    about: 'the internet provider changed, revealed when the assistant asks whether the old one is still in use',
    events: [
      ...talk('will', 's1', '2025-08-05T19:00:00Z', [
        'u: can you save some household info for me',
        'a: Sure, go ahead.',
        'u: our internet is Spectrum, the 300 Mbps plan, account is in my name',
        'a: Saved: Spectrum, 300 Mbps plan, account holder Will.',
        'u: and the electric company is PG&E',
        'a: Saved.',
      ]),
      ...talk('will', 's2', '2025-09-18T08:00:00Z', [
        'u: what should I get my brother for his 40th',
        'a: What is he into?',
        'u: grilling and old westerns',
        'a: A cast-iron smoker box and the Sergio Leone Blu-ray set would cover both.',
      ]),
      ...talk('will', 's3', '2025-11-12T21:30:00Z', [
        'u: wifi is super slow tonight',
        'a: Sorry about that. Are you still with Spectrum? I can check their outage map.',
        "u: nope, we went with Verizon Fios in October, it's been solid. I think it's just my laptop",
        "a: Thanks — I've updated your provider to Verizon Fios. Try restarting the laptop's wifi adapter first.",
        'u: that fixed it lol',
      ]),
    ],
    questions: [
      {
        user: 'will',
        query: 'Who do we get our broadband from?',
        current: ['Fios'],
        stale: ['Spectrum'],
        as_of: [
          { at: '2025-09-01T00:00:00Z', expect: ['Spectrum'], not: ['Fios'] },
          { at: '2025-11-15T00:00:00Z', expect: ['Fios'] },
        ],
      },
    ],
  },
  {
    id: 'ho-home-landlord-chain',
    set: 'check',
    about: 'the landlord changes twice as the building is sold and sold again (a chain of three)',
    events: [
      ...talk('eli', 's1', '2025-06-02T18:00:00Z', [
        'u: hi, the kitchen faucet is dripping, can you help me write a repair request',
        "a: Sure. Who's it going to?",
        "u: our landlord is Mr. Greer, he lives upstairs. he's old school, likes paper notes",
        'a: Here\'s a short note for Mr. Greer: "Hi Mr. Greer, the kitchen faucet in 2B has a steady drip. Could you take a look this week? Thanks, Eli."',
      ]),
      ...talk('eli', 's2', '2025-08-19T20:10:00Z', [
        'u: so Greer sold the building. we pay Parkside Property Group now, they sent a welcome packet',
        'a: Noted — Parkside Property Group is your landlord now. Anything in the packet I should remember?',
        'u: repairs go through their online portal',
        'a: Got it, repair requests go through the Parkside portal.',
      ]),
      ...talk('eli', 's3', '2025-09-25T12:00:00Z', [
        'u: recommend a good podcast for a long drive',
        'a: "Hardcore History" if you want long episodes, "99% Invisible" if you want short ones.',
        'u: nice',
      ]),
      ...talk('eli', 's4', '2025-10-07T19:45:00Z', [
        "u: you won't believe it, the building changed hands again. Halden Realty owns it now and rent goes to them starting November",
        "a: Wow, twice in one year. I've updated your landlord to Halden Realty.",
        'u: do I need a new renters insurance policy',
        'a: No, your policy stays with you; just update the additional-interest contact to Halden Realty.',
      ]),
    ],
    questions: [
      {
        user: 'eli',
        query: 'Who owns our apartment building?',
        current: ['Halden'],
        stale: ['Greer', 'Parkside'],
        as_of: [
          { at: '2025-07-01T00:00:00Z', expect: ['Greer'], not: ['Parkside', 'Halden'] },
          { at: '2025-09-01T00:00:00Z', expect: ['Parkside'], not: ['Halden'] },
          { at: '2025-10-10T00:00:00Z', expect: ['Halden'] },
        ],
      },
    ],
  },
  {
    id: 'ho-home-rent-late',
    set: 'check',
    about: 'the rent due day changes with a new lease; a payment note from before arrives late; the amount stays',
    events: [
      ...talk('nora', 's1', '2026-01-03T10:00:00Z', [
        'u: new year, new budget. can you remember my rent details',
        'a: Sure, what are they?',
        'u: rent is $1,850, due on the 1st, I pay through the Cozy portal',
        'a: Saved: $1,850 rent, due on the 1st, paid via Cozy.',
      ]),
      ...talk('nora', 's2', '2026-03-02T18:30:00Z', [
        'u: signed the lease renewal! same $1,850, but the due date moves to the 5th, which lines up better with payday',
        'a: Congrats on renewing. Updated: rent is due on the 5th now, still $1,850.',
        'u: yay. can you set a reminder two days before',
        'a: Reminder set for the 3rd of each month.',
      ]),
      ...talk('nora', 's3', '2026-02-01T09:05:00Z', ['u: paid February rent this morning, on the 1st like always', 'a: Nice, logged as paid.']),
      ...talk('nora', 's4', '2026-03-20T17:00:00Z', [
        'u: can you help me find a cheap standing desk',
        'a: The FlexiSpot EC1 is usually under $200 and well reviewed.',
        'u: ordering it, thanks',
      ]),
    ],
    questions: [
      {
        user: 'nora',
        query: 'By what day each month do I have to pay the landlord?',
        current: ['5th'],
        stale: ['1st'],
        as_of: [
          { at: '2026-02-10T00:00:00Z', expect: ['1st'], not: ['5th'] },
          { at: '2026-03-10T00:00:00Z', expect: ['5th'] },
        ],
      },
      { user: 'nora', query: 'How much is my monthly housing payment?', current: ['1,850'] },
    ],
  },
  {
    id: 'ho-home-trash-control',
    set: 'check',
    about: 'the bin collection day and the gas company, said once in a move-in chat; never changed',
    events: [
      ...talk('pat', 's1', '2025-07-01T17:00:00Z', [
        'u: we got the keys!! can you help me with a move-in checklist',
        "a: Congratulations! Here's a start: change the locks, set up utilities, update your address, find the breaker box.",
        'u: the neighbor said trash and recycling get picked up Thursday mornings, so bins out Wednesday night',
        "a: Noted: pickup is Thursday morning, bins go out Wednesday night. I'll add a weekly reminder.",
        'u: and gas is through Nicor',
        'a: Added Nicor Gas to the utilities list.',
      ]),
      ...talk('pat', 's2', '2025-07-09T12:00:00Z', [
        'u: what color should I paint a north-facing bedroom',
        'a: Warm whites or soft greiges keep it from feeling cold; try a sample of Swiss Coffee.',
        'u: ooh ok',
      ]),
      ...talk('pat', 's3', '2025-07-20T09:30:00Z', [
        'u: can you find a mover to take the old couch away',
        "a: Junk King and a local guy, Dave's Hauling, both do single-item pickups for about $90–120.",
        "u: I'll call Dave's",
        'a: Sounds good.',
      ]),
    ],
    questions: [
      { user: 'pat', query: 'When does the garbage truck come by?', current: ['Thursday'] },
      { user: 'pat', query: 'Who supplies our natural gas?', current: ['Nicor'] },
      { user: 'pat', query: "Who's our plumber?", never_said: true },
    ],
  },
  // ---------------------------------------------------------------- travel
  {
    id: 'ho-travel-home-airport',
    set: 'check',
    about: 'the home airport changes after a move, mentioned while asking for flights',
    events: [
      ...talk('grant', 's1', '2025-05-06T14:00:00Z', [
        'u: book me a flight to Chicago for the 22nd, I always fly out of SFO',
        'a: Found a United nonstop from SFO at 8:05am arriving 2:20pm, $289. Want it?',
        'u: yes, aisle if possible',
        'a: Booked, seat 21C.',
      ]),
      ...talk('grant', 's2', '2025-07-22T19:00:00Z', [
        'u: moving day is saturday, wish me luck',
        'a: Good luck! Want a packing-day checklist?',
        'u: nah, we got it. thanks though',
      ]),
      ...talk('grant', 's3', '2025-09-09T09:15:00Z', [
        "u: now that we're settled in the East Bay I'd rather fly out of Oakland, way less hassle. find me something to Denver on the 20th",
        'a: Noted, Oakland is your home airport now. Southwest has a 7:10am nonstop from OAK to Denver on the 20th, $149.',
        'u: perfect, book it',
        'a: Booked.',
      ]),
    ],
    questions: [
      {
        user: 'grant',
        query: 'Which airport do I usually depart from?',
        current: ['Oakland'],
        stale: ['SFO'],
        as_of: [
          { at: '2025-06-01T00:00:00Z', expect: ['SFO'], not: ['Oakland'] },
          { at: '2025-09-12T00:00:00Z', expect: ['Oakland'] },
        ],
      },
    ],
  },
  {
    id: 'ho-travel-airline-reversal',
    set: 'check',
    about: 'the preferred airline switches and then switches back (a reversal)',
    events: [
      ...talk('hana', 's1', '2025-03-04T10:00:00Z', [
        "u: can you remember my travel prefs? I'm Gold on Delta, always book Delta when it's an option",
        'a: Saved: Delta SkyMiles Gold, book Delta when available.',
        'u: window seat, and no red-eyes',
        'a: Got it — window, no overnight flights.',
      ]),
      ...talk('hana', 's2', '2025-06-10T16:30:00Z', [
        "u: new job starts monday! their hub is Newark so I'm putting all my flying on United now, I want status there",
        'a: Congrats on the new job! Updated: book United first from now on.',
        'u: thx. also I need a new carry-on, something that fits under the seat',
        'a: The Away Everywhere Bag and the Tumi Voyageur backpack both fit under most seats.',
      ]),
      ...talk('hana', 's3', '2025-10-01T08:20:00Z', [
        "u: United has been a disaster for me, two cancellations in a month. I'm going back to Delta for everything",
        'a: Sorry about the cancellations. Switching your preference back to Delta.',
        'u: and book me to Atlanta on the 14th',
        'a: Delta has a 9:30am nonstop to Atlanta on the 14th, window seat 12A. Booked.',
      ]),
    ],
    questions: [
      {
        user: 'hana',
        query: 'Which carrier should you book me on?',
        current: ['Delta'],
        stale: ['United'],
        as_of: [
          { at: '2025-04-01T00:00:00Z', expect: ['Delta'], not: ['United'] },
          { at: '2025-08-01T00:00:00Z', expect: ['United'], not: ['Delta'] },
          { at: '2025-10-05T00:00:00Z', expect: ['Delta'] },
        ],
      },
    ],
  },
  {
    id: 'ho-travel-two-travelers',
    set: 'check',
    about: "two colleagues with different hotel and seat preferences; one switched hotel chains; each one's values are stale for the other",
    events: [
      ...talk('priya', 'p1', '2025-04-14T09:00:00Z', [
        'u: hi! booking travel for the sales kickoff in Phoenix',
        'a: Happy to help. Any hotel preference?',
        "u: Marriott whenever possible, I'm Titanium with Bonvoy. and a window seat on the plane",
        'a: Noted: Marriott hotels, window seat.',
      ]),
      ...talk('dan', 'd1', '2025-04-14T09:30:00Z', [
        'u: hey, need a hotel for the Phoenix kickoff too',
        'a: Sure. Any chain you prefer?',
        "u: Marriott, I guess, that's where my points are. aisle seat for flights",
        'a: Noted: Marriott, aisle seat.',
      ]),
      ...talk('priya', 'p2', '2025-05-20T13:00:00Z', [
        "u: what's the weather in Phoenix next week",
        'a: Sunny, highs around 98°F. Pack sunscreen!',
        'u: oof ok',
      ]),
      ...talk('dan', 'd2', '2025-06-03T15:45:00Z', [
        "u: moved all my points over, I'm a Hilton guy now — Honors Diamond through the company deal. book Hilton from here on",
        'a: Updated: Hilton is your preferred hotel chain now.',
        'u: and get me to Boston on the 12th',
        'a: Booked an aisle seat on the 7am to Boston and the Hilton Boston Back Bay for two nights.',
      ]),
    ],
    questions: [
      { user: 'priya', query: 'What hotel brand do I stay with?', current: ['Marriott'], stale: ['Hilton'] },
      {
        user: 'dan',
        query: 'What hotel brand do I stay with?',
        current: ['Hilton'],
        stale: ['Marriott'],
        as_of: [
          { at: '2025-05-01T00:00:00Z', expect: ['Marriott'], not: ['Hilton'] },
          { at: '2025-06-05T00:00:00Z', expect: ['Hilton'] },
        ],
      },
      { user: 'priya', query: 'Do I like to sit by the window or on the aisle?', current: ['window'], stale: ['aisle'] },
      { user: 'dan', query: 'Do I like to sit by the window or on the aisle?', current: ['aisle'], stale: ['window'] },
    ],
  },
  {
    id: 'ho-travel-seat-control',
    set: 'check',
    about: 'a seat preference and a rental car company said once while planning a conference trip; never changed',
    events: [
      ...talk('owen', 's1', '2025-02-03T11:00:00Z', [
        'u: heading to the Austin conference March 10–13, can you help me book',
        'a: Sure! Flights, hotel, car?',
        "u: all three. always put me in an aisle seat, I'm 6'4\" and window seats are torture. and rentals through Enterprise, the company has an account",
        'a: Noted — aisle seats, Enterprise for rental cars. Looking for flights to Austin for March 10.',
        'u: thanks',
        'a: Booked the 9:15am to Austin, seat 14C, and a midsize at Enterprise.',
      ]),
      ...talk('owen', 's2', '2025-02-20T18:30:00Z', [
        'u: any good BBQ near the convention center',
        "a: Terry Black's and Stubb's are both a short ride away; Franklin is famous but the line is hours.",
        "u: Terry Black's then",
        "a: It doesn't take reservations, so go early.",
      ]),
      ...talk('owen', 's3', '2025-03-17T09:00:00Z', [
        'u: back from Austin. help me with the expense report',
        'a: Sure. Do you have the hotel folio and the receipts?',
        'u: yep, uploading now',
        "a: Got them. The total comes to $1,642, I've filled in the form for you to review.",
      ]),
    ],
    questions: [
      { user: 'owen', query: 'Where do I like to sit on planes?', current: ['aisle'] },
      { user: 'owen', query: 'Which car hire firm should you use for me?', current: ['Enterprise'] },
      { user: 'owen', query: 'When does my passport expire?', never_said: true },
    ],
  },
  // ---------------------------------------------------------------- fitness
  {
    id: 'ho-fit-plan-chain',
    set: 'check',
    about: 'the lifting program changes twice (a chain of three)',
    events: [
      ...talk('marco', 's1', '2025-01-06T06:30:00Z', [
        "u: new year new me. I'm starting the Starting Strength program, 3 days a week",
        'a: Great choice for a beginner. Want me to log your starting weights?',
        'u: squat 135, bench 115, deadlift 185',
        "a: Logged. I'll track the progression each session.",
      ]),
      ...talk('marco', 's2', '2025-03-03T07:00:00Z', [
        "u: my linear progression stalled, so I've moved on to Wendler's 5/3/1",
        "a: Makes sense after two months. I'll set up the 5/3/1 cycles with your training maxes.",
        'u: sounds good',
      ]),
      ...talk('marco', 's3', '2025-04-15T19:00:00Z', [
        'u: what should I eat before a morning lift',
        'a: Something light with carbs and a little protein, like a banana and Greek yogurt, 30–60 minutes before.',
        'u: cool',
      ]),
      ...talk('marco', 's4', '2025-06-02T06:45:00Z', [
        'u: summer plan: going to a push/pull/legs split, 6 days a week',
        "a: Got it. I'll set up push/pull/legs on a six-day rotation starting today.",
        'u: 💪',
      ]),
    ],
    questions: [
      {
        user: 'marco',
        query: 'What routine am I following at the gym?',
        current: ['push/pull/legs'],
        stale: ['Starting Strength', '5/3/1'],
        as_of: [
          { at: '2025-02-01T00:00:00Z', expect: ['Starting Strength'], not: ['5/3/1', 'push/pull/legs'] },
          { at: '2025-04-01T00:00:00Z', expect: ['5/3/1'], not: ['push/pull/legs'] },
          { at: '2025-06-05T00:00:00Z', expect: ['push/pull/legs'] },
        ],
      },
    ],
  },
  {
    id: 'ho-fit-race-negation',
    set: 'check',
    about: 'the target race is dropped ("not running X anymore") and replaced',
    events: [
      ...talk('sofia', 's1', '2025-04-14T20:00:00Z', [
        'u: I DID IT, signed up for the Chicago Marathon in October! first full',
        "a: That's huge, congratulations! Want a 24-week training plan?",
        'u: yes please, 4 runs a week max',
        "a: Here's a plan with 4 runs a week, long runs on Sundays, peaking at 20 miles three weeks out.",
      ]),
      ...talk('sofia', 's2', '2025-05-20T07:10:00Z', [
        'u: joined a run club that meets Tuesdays at the park',
        'a: Nice, that will help with consistency. Want me to add it to your calendar?',
        'u: yes',
      ]),
      ...talk('sofia', 's3', '2025-07-08T18:40:00Z', [
        "u: bad news, I'm not running Chicago anymore. the physio says my IT band needs a real break",
        "a: I'm sorry, that's disappointing. Do you want to pick a different goal?",
        "u: yeah, I'll aim for the Brooklyn Half next spring instead",
        "a: Good call. I'll build a gentler plan toward the Brooklyn Half with a return-to-run phase first.",
      ]),
    ],
    questions: [
      {
        user: 'sofia',
        query: 'What race am I training for?',
        current: ['Brooklyn Half'],
        stale: ['Chicago Marathon'],
        as_of: [
          { at: '2025-06-01T00:00:00Z', expect: ['Chicago'], not: ['Brooklyn'] },
          { at: '2025-07-10T00:00:00Z', expect: ['Brooklyn'] },
        ],
      },
    ],
  },
  {
    id: 'ho-fit-goal-late',
    set: 'check',
    about: 'a marathon time goal is raised; a run log restating the old goal arrives late',
    events: [
      ...talk('liam', 's1', '2025-08-04T19:00:00Z', [
        'u: I registered for the Philadelphia Marathon in November',
        'a: Nice! Do you have a time goal?',
        'u: sub-4 would make me thrilled',
        "a: Noted: goal is sub-4 at Philly. That's about 9:09 per mile.",
      ]),
      ...talk('liam', 's2', '2025-10-06T07:30:00Z', [
        "u: 20-miler done at 8:40 pace and felt strong, so I'm raising the bar: going for 3:45 in Philly",
        'a: That run backs it up. Updated your goal to 3:45, about 8:35 per mile.',
        "u: let's go",
      ]),
      ...talk('liam', 's3', '2025-09-01T08:15:00Z', [
        'u: long run this morning, 16 miles. still think sub-4 is the right target for Philly',
        'a: Solid run. Logged 16 miles.',
      ]),
      ...talk('liam', 's4', '2025-10-20T12:00:00Z', [
        'u: what should my taper look like',
        'a: Cut volume about 20–25% each of the last three weeks, keep a little race-pace work, and sleep a lot.',
        'u: thanks coach',
      ]),
    ],
    questions: [
      {
        user: 'liam',
        query: 'What finishing time am I aiming for in November?',
        current: ['3:45'],
        stale: ['sub-4'],
        as_of: [
          { at: '2025-09-15T00:00:00Z', expect: ['sub-4'], not: ['3:45'] },
          { at: '2025-10-10T00:00:00Z', expect: ['3:45'] },
        ],
      },
    ],
  },
  // ---------------------------------------------------------------- finance
  {
    id: 'ho-fin-bank-implicit',
    set: 'check',
    about: 'the checking account moves to another bank, stated without a change word',
    events: [
      ...talk('ivy', 's1', '2025-02-10T20:00:00Z', [
        'u: help me set up a monthly bill calendar',
        'a: Sure. Which account do the bills come out of?',
        'u: my checking at Wells Fargo',
        'a: Got it — bills are paid from your Wells Fargo checking. What are the bills?',
        'u: phone on the 8th, car insurance on the 15th, gym on the 20th',
        'a: Added all three.',
      ]),
      ...talk('ivy', 's2', '2025-03-15T10:30:00Z', [
        'u: is it better to pay off a card or put money into savings',
        'a: Generally pay down high-interest cards first, but keep a small emergency cushion.',
        'u: makes sense',
      ]),
      ...talk('ivy', 's3', '2025-05-12T18:10:00Z', [
        'u: fyi bills now come out of my Schwab checking, the new debit card showed up today',
        'a: Updated: bills are paid from your Schwab checking now.',
        'u: and remind me to update the gym autopay',
        'a: Reminder set for tomorrow.',
      ]),
    ],
    questions: [
      { user: 'ivy', query: 'Which bank holds my checking account?', current: ['Schwab'], stale: ['Wells Fargo'] },
      { user: 'ivy', query: "What's my credit score?", never_said: true },
    ],
  },
  {
    id: 'ho-fin-savings-numeric',
    set: 'check',
    about: 'a savings goal is raised (a number changes)',
    events: [
      ...talk('ravi', 's1', '2025-01-15T21:00:00Z', [
        'u: money goals for the year, can you keep track',
        "a: Sure! What's the first one?",
        'u: emergency fund: I want $12,000 saved by December',
        "a: Saved: emergency fund target $12,000 by December. That's $1,000 a month.",
      ]),
      ...talk('ravi', 's2', '2025-03-02T11:00:00Z', [
        'u: is a HYSA worth it over my regular savings',
        'a: Yes — high-yield savings accounts pay around 4% versus nearly zero at most big banks.',
        'u: ok opening one',
      ]),
      ...talk('ravi', 's3', '2025-06-03T19:20:00Z', [
        'u: got a raise!! so the emergency fund goal goes from 12k to 18k',
        'a: Congratulations! Updated your emergency fund target to $18,000 by December.',
        'u: how much per month is that from here',
        "a: You're at $5,500, so about $1,790 a month for the next seven months.",
      ]),
    ],
    questions: [
      {
        user: 'ravi',
        query: 'How big should my rainy-day cushion be by year end?',
        current: ['18k', '18,000'],
        stale: ['12,000', '12k'],
        as_of: [
          { at: '2025-04-01T00:00:00Z', expect: ['12,000', '12k'], not: ['18k', '18,000'] },
          { at: '2025-06-05T00:00:00Z', expect: ['18k', '18,000'] },
        ],
      },
    ],
  },
  {
    id: 'ho-fin-budget-correction',
    set: 'check',
    about: 'a monthly grocery budget is corrected the next day',
    events: [
      ...talk('jade', 's1', '2025-09-02T20:00:00Z', [
        "u: i'm finally doing a budget. set my grocery budget to $600 a month",
        'a: Done: groceries $600 a month. Want me to track spending against it?',
        'u: yes',
      ]),
      ...talk('jade', 's2', '2025-09-03T08:30:00Z', [
        'u: oops no — groceries should be $450. the 600 was groceries and eating out together',
        'a: Fixed: groceries $450 a month. Should I add eating out as its own category?',
        'u: yes, $150',
        'a: Added: eating out, $150 a month.',
      ]),
      ...talk('jade', 's3', '2025-09-12T17:00:00Z', [
        'u: what are some cheap high-protein dinners',
        'a: Lentil curry, black bean tacos, egg fried rice and chicken thigh sheet pans are all cheap and filling.',
        'u: thanks!',
      ]),
    ],
    questions: [
      {
        user: 'jade',
        query: 'How much can I spend on food shopping per month?',
        current: ['450'],
        stale: ['600'],
        as_of: [{ at: '2025-09-02T23:00:00Z', expect: ['600'], not: ['450'] }],
      },
    ],
  },
  {
    id: 'ho-fin-two-households',
    set: 'check',
    about: "two people with their own bank and monthly spending cap; each one's values are stale for the other",
    events: [
      ...talk('lena', 'l1', '2025-10-01T19:00:00Z', [
        'u: setting up my finances with you',
        'a: Great. Where do you bank?',
        "u: BECU, it's a credit union. my monthly spending cap is $2,200 not counting rent",
        'a: Saved: banking with BECU, spending cap $2,200 a month excluding rent.',
      ]),
      ...talk('tariq', 't1', '2025-10-02T08:00:00Z', [
        'u: morning, can you help me track spending',
        'a: Sure. Which bank?',
        'u: Chime. and I want to keep it to $3,100 a month all in',
        'a: Saved: Chime, $3,100 monthly spending cap.',
      ]),
      ...talk('lena', 'l2', '2025-10-09T21:15:00Z', [
        'u: how do I split a bill fairly with a roommate who earns more',
        'a: A common approach is proportional to income — if they earn 60% of the total, they pay 60%.',
        'u: interesting',
      ]),
      ...talk('tariq', 't2', '2025-10-10T12:40:00Z', ['u: did I go over last month', 'a: You spent $2,940, so you came in under.', 'u: nice']),
    ],
    questions: [
      { user: 'lena', query: 'Where do I keep my money?', current: ['BECU'], stale: ['Chime'] },
      { user: 'tariq', query: 'Where do I keep my money?', current: ['Chime'], stale: ['BECU'] },
      { user: 'lena', query: 'What is my monthly limit for spending?', current: ['2,200'], stale: ['3,100'] },
      { user: 'tariq', query: 'What is my monthly limit for spending?', current: ['3,100'], stale: ['2,200'] },
    ],
  },
  // ---------------------------------------------------------------- software team
  {
    id: 'ho-dev-db-passing',
    set: 'check',
    about: 'the database changes, mentioned in passing inside a question about something else',
    events: [
      ...talk('fatima', 's1', '2025-05-05T14:00:00Z', [
        'u: our API runs on MySQL 5.7 and this query takes 4 seconds, help',
        'a: Can you paste the query and the EXPLAIN output?',
        'u: SELECT * FROM orders WHERE customer_id = ? ORDER BY created_at DESC LIMIT 20',
        'a: Add a composite index on (customer_id, created_at) and it should drop to milliseconds.',
        'u: that did it, 12ms. ty!',
      ]),
      ...talk('fatima', 's2', '2025-06-11T10:00:00Z', [
        "u: can you explain the difference between a mutex and a semaphore like I'm five",
        'a: A mutex is a bathroom key — one person at a time. A semaphore is a bowl of N keys — up to N people at once.',
        'u: lol perfect',
      ]),
      ...talk('fatima', 's3', '2025-07-14T16:20:00Z', [
        "u: now that we're on Postgres (the migration finally finished friday!!) how do I write an upsert for the sessions table",
        'a: Congrats on the migration! Use INSERT ... ON CONFLICT (id) DO UPDATE SET ... with EXCLUDED for the new values.',
        'u: perfect, and can it return the row',
        'a: Yes, add RETURNING * at the end.',
      ]),
    ],
    questions: [
      {
        user: 'fatima',
        query: 'What database engine does our API use?',
        current: ['Postgres'],
        stale: ['MySQL'],
        as_of: [
          { at: '2025-06-01T00:00:00Z', expect: ['MySQL'], not: ['Postgres'] },
          { at: '2025-07-16T00:00:00Z', expect: ['Postgres'] },
        ],
      },
    ],
  },
  {
    id: 'ho-dev-hosting-qa',
    set: 'check',
    about: 'the hosting platform changed, revealed when the assistant asks whether the old one is still used',
    events: [
      ...talk('noah', 's1', '2025-11-10T15:00:00Z', [
        'u: how do I roll back a bad deploy',
        'a: Which platform are you deploying to?',
        'u: Heroku, we deploy with git push from CI',
        'a: Run `heroku releases` to find the last good version, then `heroku rollback v123`.',
        'u: nice, thanks',
      ]),
      ...talk('noah', 's2', '2026-01-08T11:00:00Z', [
        'u: happy new year!',
        'a: Happy new year! What are you working on?',
        'u: writing the Q1 roadmap, can you give me a template',
        'a: Sections: goals, key results, initiatives, risks, dependencies, out of scope.',
      ]),
      ...talk('noah', 's3', '2026-02-19T09:40:00Z', [
        'u: the app is returning 502s after the deploy',
        'a: Is it still on Heroku? If so the router logs will show H-codes.',
        'u: nah we moved to Fly.io last month, Heroku got too pricey',
        'a: Got it, Fly.io it is. Run `fly logs` and check whether the machines are passing their health checks.',
        'u: health check path was wrong. fixed, thanks',
      ]),
    ],
    questions: [
      { user: 'noah', query: 'Where is our app deployed these days?', current: ['Fly.io'], stale: ['Heroku'] },
      { user: 'noah', query: 'Which error tracking tool do we pay for?', never_said: true },
    ],
  },
  {
    id: 'ho-dev-ci-chain',
    set: 'check',
    about: 'the CI system changes twice (a chain of three)',
    events: [
      ...talk('yuki', 's1', '2025-02-03T10:00:00Z', [
        'u: our builds take 25 minutes on Jenkins, any quick wins',
        'a: Cache dependencies between runs, split the test suite into parallel stages, and skip the docker build on docs-only changes.',
        'u: good ideas',
      ]),
      ...talk('yuki', 's2', '2025-04-22T13:30:00Z', [
        'u: we finally killed the Jenkins box, everything builds on CircleCI now',
        'a: Nice. Want help translating the old pipeline stages into a config.yml?',
        'u: already done, but thanks',
      ]),
      ...talk('yuki', 's3', '2025-06-16T09:00:00Z', [
        "u: what's a good name for an internal CLI tool",
        'a: Some ideas: forge, toolbelt, dockhand, yak.',
        'u: yak lol',
      ]),
      ...talk('yuki', 's4', '2025-08-05T15:50:00Z', [
        'u: ok last CI migration ever I promise, we moved to GitHub Actions since our code is on GitHub anyway',
        'a: Makes sense. Want a workflow template with caching and a test matrix?',
        'u: yes',
        "a: Here's a workflow with actions/cache, a Node 20/22 matrix and a separate lint job.",
      ]),
    ],
    questions: [
      {
        user: 'yuki',
        query: 'What runs our builds?',
        current: ['GitHub Actions'],
        stale: ['Jenkins', 'CircleCI'],
        as_of: [
          { at: '2025-03-01T00:00:00Z', expect: ['Jenkins'], not: ['CircleCI', 'GitHub Actions'] },
          { at: '2025-06-01T00:00:00Z', expect: ['CircleCI'], not: ['GitHub Actions'] },
          { at: '2025-08-07T00:00:00Z', expect: ['GitHub Actions'] },
        ],
      },
    ],
  },
  {
    id: 'ho-dev-review-rule',
    set: 'check',
    about: 'the required number of PR approvals is raised after an incident',
    events: [
      ...talk('ahmed', 's1', '2025-09-01T11:00:00Z', [
        'u: onboarding a new dev, help me write our contribution guide',
        'a: Sure. What are the rules for pull requests?',
        'u: every PR needs one approval before merge, squash merges only, and CI has to be green',
        'a: Drafted: one approval required, squash merge, green CI before merging.',
      ]),
      ...talk('ahmed', 's2', '2025-10-13T16:00:00Z', [
        'u: postmortem from last week is done, can you tighten the wording',
        "a: Paste it in and I'll edit for clarity.",
        'u: done',
        "a: Here's a tighter version with a clear timeline, root cause and action items.",
      ]),
      ...talk('ahmed', 's3', '2025-10-15T10:30:00Z', [
        'u: outcome of the postmortem: we now require two approvals on every PR, and one of them must come from outside your own squad',
        'a: Updated the contribution guide: two approvals per PR, one from another squad.',
        'u: thanks',
      ]),
    ],
    questions: [
      {
        user: 'ahmed',
        query: 'How many reviewers need to sign off before I can merge?',
        current: ['two approvals'],
        stale: ['one approval'],
        as_of: [
          { at: '2025-10-01T00:00:00Z', expect: ['one approval'], not: ['two approvals'] },
          { at: '2025-10-16T00:00:00Z', expect: ['two approvals'] },
        ],
      },
      { user: 'ahmed', query: 'What merge strategy do we use?', current: ['squash'] },
    ],
  },
  {
    id: 'ho-dev-sprint-length',
    set: 'check',
    about: 'the sprint length changes for a quarter; the planning day does not',
    events: [
      ...talk('lucas', 's1', '2025-12-01T09:00:00Z', [
        'u: I just became scrum master, help me plan the ceremonies',
        'a: Congrats! How long are your sprints?',
        'u: two-week sprints, planning on Monday mornings, retro on the last Friday',
        "a: Here's a calendar: planning Monday 10am, daily standups 9:30, review and retro on the second Friday.",
      ]),
      ...talk('lucas', 's2', '2025-12-15T14:00:00Z', [
        "u: any retro formats that aren't boring",
        'a: Try sailboat, start/stop/continue, or the "4 Ls": liked, learned, lacked, longed for.',
        'u: sailboat sounds fun',
      ]),
      ...talk('lucas', 's3', '2026-01-05T08:45:00Z', [
        'u: new year change: leadership wants faster feedback, so we are trying one-week sprints this quarter',
        "a: Got it. I'll compress the calendar: planning Monday, retro every Friday.",
        'u: yep',
      ]),
    ],
    questions: [
      { user: 'lucas', query: 'How long is an iteration for our team?', current: ['one-week'], stale: ['two-week'] },
      { user: 'lucas', query: 'What day do we hold planning?', current: ['Monday'] },
    ],
  },
  {
    id: 'ho-dev-oncall-late',
    set: 'check',
    about: 'the on-call engineer changes mid-week (third party out sick); an older alert note arrives late',
    events: [
      ...talk('erin', 's1', '2026-03-02T09:00:00Z', [
        'u: weekly ops sync notes: Raj has the pager this week, deploy freeze thursday for the audit',
        'a: Noted: Raj is on call this week; deploy freeze Thursday.',
        'u: also remind me to renew the TLS cert for the status page',
        'a: Reminder set for Wednesday.',
      ]),
      ...talk('erin', 's2', '2026-03-04T08:10:00Z', [
        'u: Raj is out sick, Ingrid swapped in and is on call through Sunday',
        'a: Updated: Ingrid is on call through Sunday. Should I update the PagerDuty schedule?',
        'u: already did, thanks',
      ]),
      ...talk('erin', 's3', '2026-03-03T02:30:00Z', [
        'u: db CPU alert at 2am, Raj jumped on it since he is on call',
        'a: Logged the incident with Raj as responder.',
      ]),
      ...talk('erin', 's4', '2026-03-05T15:00:00Z', [
        'u: can you draft the audit checklist',
        'a: Access reviews, backup restore test, change log export, and the incident list for the quarter.',
        'u: thanks',
      ]),
    ],
    questions: [
      {
        user: 'erin',
        query: 'Who should I page if prod goes down tonight?',
        current: ['Ingrid'],
        stale: ['Raj'],
        as_of: [
          { at: '2026-03-03T12:00:00Z', expect: ['Raj'], not: ['Ingrid'] },
          { at: '2026-03-05T00:00:00Z', expect: ['Ingrid'] },
        ],
      },
    ],
  },
  {
    id: 'ho-dev-two-teams',
    set: 'check',
    about: "two engineers on different teams with different cache and release day; each one's values are stale for the other",
    events: [
      ...talk('mei', 'm1', '2025-11-03T10:00:00Z', [
        'u: hi, backend dev on the checkout team. our service caches with Redis',
        'a: Got it. Anything else about the setup?',
        'u: we release on Tuesdays',
        'a: Noted: Redis for caching, releases on Tuesday.',
      ]),
      ...talk('tom', 't1', '2025-11-03T11:30:00Z', [
        'u: hey, I work on the search team. we use Memcached in front of the index',
        'a: Noted. When do you ship?',
        'u: releases go out Thursdays',
        'a: Got it: Memcached, releases on Thursday.',
      ]),
      ...talk('mei', 'm2', '2025-11-12T14:00:00Z', [
        'u: how do I find slow endpoints in our traces',
        'a: Sort spans by p95 duration per route, then drill into the slowest span in each trace.',
        'u: thanks',
      ]),
      ...talk('tom', 't2', '2025-11-13T16:20:00Z', [
        'u: write me a haiku about flaky tests',
        'a: Green, then red, then green / nothing changed but the moonlight / rerun, pray, merge it',
        'u: lmao',
      ]),
    ],
    questions: [
      { user: 'mei', query: 'What caching layer does my service use?', current: ['Redis'], stale: ['Memcached'] },
      { user: 'tom', query: 'What caching layer does my service use?', current: ['Memcached'], stale: ['Redis'] },
      { user: 'mei', query: 'Which day do we ship?', current: ['Tuesday'], stale: ['Thursday'] },
      { user: 'tom', query: 'Which day do we ship?', current: ['Thursday'], stale: ['Tuesday'] },
    ],
  },
  {
    id: 'ho-dev-branch-control',
    set: 'check',
    about: 'the default branch name and the staging host, said once in onboarding; never changed',
    events: [
      ...talk('sven', 's1', '2025-04-07T09:30:00Z', [
        'u: first day on the platform team, the lead gave me a bunch of info, can you remember some',
        'a: Welcome aboard! Go ahead.',
        'u: the default branch is called trunk, and staging lives at stg.internal.kettle.dev',
        'a: Saved: default branch trunk, staging at stg.internal.kettle.dev.',
        'u: and standup is at 9:45',
        'a: Saved.',
      ]),
      ...talk('sven', 's2', '2025-04-10T13:00:00Z', ['u: how do I undo my last commit but keep the changes', 'a: git reset --soft HEAD~1', 'u: lifesaver']),
      ...talk('sven', 's3', '2025-04-18T17:00:00Z', [
        "u: what's a good mechanical keyboard under $100",
        'a: The Keychron V1 or the Royal Kludge RK84 are both solid picks.',
        'u: getting the keychron',
        'a: Good choice.',
      ]),
    ],
    questions: [
      { user: 'sven', query: 'Which branch should pull requests target?', current: ['trunk'] },
      { user: 'sven', query: 'What URL is the pre-prod environment on?', current: ['stg.internal.kettle.dev'] },
      { user: 'sven', query: 'Which logging vendor do we pay for?', never_said: true },
    ],
  },
];
