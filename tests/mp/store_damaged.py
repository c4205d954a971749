# Damaged store files under micropython: every vector loads as "damaged", nothing crashes.
"""Run under micropython: store_damaged.py [posix-folder].

Without an argument the files live on os.VfsLfs2 over a RAM flash (store_flashdev.py), as on
the Pico; with a folder they live on the unix port's own filesystem. Each vector writes a
file by hand, then checks load() and load_into() return nothing with the expected status,
and that a fresh save then loads back. Prints failures and "VECTORS <n> FAIL <n>".
"""

import os
import sys

from shutbox.store import MISSING, OK, Store, damaged

# shutbox.store's private status codes and header constants (folded into its bytecode, so
# there is nothing to import); tests/reliability/test_store.py checks these copies against
# the module.
TRUNCATED, BAD_MAGIC, BAD_VERSION, TOO_BIG, BAD_CRC = 2, 3, 4, 5, 6
DAMAGED = TRUNCATED  # the first damaged code: expect() then takes any damaged one
FORMAT, HEADER = 1, 12

CAP = 1024
NAME = "records"
failures = 0
vectors = 0
_seed = [0x2545F491]


def rand():
    """Return the next 32-bit xorshift value (deterministic, same on every run)."""
    x = _seed[0]
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    _seed[0] = x
    return x


def rand_bytes(n):
    """Return *n* pseudo-random bytes."""
    b = bytearray(n)
    for i in range(n):
        b[i] = rand() & 0xFF
    return bytes(b)


def put(store, raw):
    """Write *raw* bytes as the file NAME, bypassing the store."""
    with open(store.root + "/" + NAME, "wb") as f:
        f.write(raw)


def fail(what, detail):
    """Count and print a failure."""
    global failures
    failures += 1
    if failures <= 20:
        print("FAIL", what, detail)


def expect(store, what, raw, want, good=None, recover=True):
    """Write *raw*, then check both loads give status *want* (and *good* when OK)."""
    global vectors
    vectors += 1
    if raw is not None:
        put(store, raw)
    try:
        got = store.load(NAME)
        st = store.status
        buf = bytearray(CAP)
        n = store.load_into(NAME, buf)
        st2 = store.status
    except Exception as e:  # any exception at all is a crash of the box
        fail(what, "raised %r" % (e,))
        return
    if want == DAMAGED:  # any damaged code will do (e.g. random bytes)
        ok = damaged(st) and damaged(st2)
    else:
        ok = st == want and st2 == want
    if want == OK:
        ok = ok and got == good and n == len(good) and buf[:n] == good
    elif got is not None or n != -1:
        ok = False
    if not ok:
        fail(what, "status %d/%d got %r" % (st, st2, got if got is None else got[:8]))
        return
    if want != OK and recover:  # recovery: the box saves its defaults and they load back
        if store.save(NAME, b"defaults") != OK or store.load(NAME) != b"defaults":
            fail(what, "no recovery, status %d" % store.status)


def valid(store, payload, version=0):
    """Return the bytes the store writes for *payload* (saved, then read back raw)."""
    store.save(NAME, payload, version)
    with open(store.root + "/" + NAME, "rb") as f:
        return f.read()


def main():
    """Write every vector and report."""
    if len(sys.argv) > 1:
        root = sys.argv[1]
    else:
        from store_flashdev import PROGSIZE, FlashDev

        dev = FlashDev(blocks=24)
        os.VfsLfs2.mkfs(dev, progsize=PROGSIZE)
        os.mount(os.VfsLfs2(dev, progsize=PROGSIZE), "/lfs")
        root = "/lfs/data"
    store = Store(root, cap=CAP)
    vectors_missing(store)
    for size in (0, 1, 24, 255, 700, CAP):
        payload = rand_bytes(size)
        raw = valid(store, payload)
        expect(store, "valid %d" % size, raw, OK, payload)
        for cut in range(0, len(raw), 1 if size < 64 else 7):
            expect(store, "truncated %d/%d" % (cut, len(raw)), raw[:cut], TRUNCATED)
        expect(store, "padded %d" % size, raw + b"\x00", TOO_BIG if size == CAP else TRUNCATED)
        for i in range(0, len(raw), 1 if size < 64 else 13):
            for mask in (0x01, 0x80, 0xFF):
                bad = bytearray(raw)
                bad[i] ^= mask
                want = (BAD_MAGIC if i < 4 else BAD_VERSION if i < 6
                        else (TRUNCATED, TOO_BIG) if i < 8 else BAD_CRC)
                if isinstance(want, tuple):  # a length that fits the cap: size mismatch
                    n = bad[6] | (bad[7] << 8)
                    want = TOO_BIG if n > CAP else TRUNCATED
                expect(store, "flip %d^%d of %d" % (i, mask, size), bytes(bad), want)
        for v in (0, 2, 255):
            bad = bytearray(raw)
            bad[4] = v
            expect(store, "format %d" % v, bytes(bad), BAD_VERSION)
    raw = valid(store, b"settings v1", version=1)
    if store.load(NAME, version=1) != b"settings v1":
        fail("payload version", "status %d" % store.status)
    expect(store, "payload version 1 read as 0", raw, BAD_VERSION)
    # Oversized: a header claiming more than the cap, and a plain huge file.
    over = rand_bytes(CAP + 1)
    hdr = bytes(b"SHBX" + bytes([FORMAT, 0, (CAP + 1) & 0xFF, (CAP + 1) >> 8, 0, 0, 0, 0]))
    expect(store, "oversized header", hdr + over, TOO_BIG)
    with open(root + "/" + NAME, "wb") as f:  # 40 KB, written in pieces for a 64 KB heap
        for _ in range(40):
            f.write(over[:1000])
    expect(store, "huge", None, TOO_BIG)
    store.save(NAME, b"x" * 100)
    if store.load_into(NAME, bytearray(10)) != -1 or store.status != TOO_BIG:
        fail("load_into small buffer", "status %d" % store.status)
    for n in range(200):
        raw = rand_bytes(rand() % 1500)
        expect(store, "random %d" % n, raw, DAMAGED)
        if n % 4 == 0:  # our magic and version in front of random bytes
            expect(store, "random+magic %d" % n, b"SHBX" + bytes([FORMAT, 0]) + raw, DAMAGED)
    expect(store, "empty", b"", TRUNCATED)
    os.remove(root + "/" + NAME)
    os.mkdir(root + "/" + NAME)  # a folder where the file should be
    expect(store, "a folder", None, DAMAGED, recover=False)
    os.rmdir(root + "/" + NAME)
    print("VECTORS %d FAIL %d" % (vectors, failures))


def vectors_missing(store):
    """A missing file is MISSING, not damaged; a leftover .tmp is cleaned and ignored."""
    global vectors
    vectors += 1
    store.remove(NAME)
    if store.load(NAME) is not None or store.status != MISSING or damaged(MISSING):
        fail("missing", "status %d" % store.status)
    store.save(NAME, b"kept")
    with open(store.root + "/" + NAME + ".tmp", "wb") as f:
        f.write(b"half a save")
    if store.load(NAME) != b"kept" or NAME + ".tmp" in os.listdir(store.root):
        fail("leftover tmp", "status %d" % store.status)
    assert HEADER == 12 and OK == 0


main()
