"""Images: references, minted URLs, signed PNGs (sections 1.5, 2 and 4; design §4)."""

from __future__ import annotations

import struct
import zlib
from datetime import datetime, timedelta

import httpx
from sandbox_helpers import Api, codes

from suggestbot.sandbox import Sandbox


def _social_refs(api: Api, headers: dict[str, str] | None = None) -> list[str]:
    sets = api.http.get(
        "/v1/suggestion-sets", params={"limit": "100"}, headers=headers or api.machine
    ).json()["data"]
    return [
        s["payload"]["asset"]["ref"]
        for found in sets
        for s in found["suggestions"]
        if s["kind"] == "social_single_image"
    ]


def _mint(api: Api, refs: list[str], headers: dict[str, str] | None = None) -> httpx.Response:
    return api.http.post("/v1/assets/urls", json={"refs": refs}, headers=headers or api.machine)


def _pixels(png: bytes) -> tuple[int, int, bytes]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    pos, data = 8, b""
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind = png[pos + 4 : pos + 8]
        if kind == b"IDAT":
            data += png[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return width, height, zlib.decompress(data)


def test_minting_returns_200_and_one_url_per_ref_valid_for_15_minutes(api: Api) -> None:
    refs = _social_refs(api)[:3]
    response = _mint(api, refs)
    assert response.status_code == 200
    body = response.json()
    assert body["meta"] == {"next_cursor": None}
    assert [m["ref"] for m in body["data"]] == refs
    now = api.clock()
    for minted in body["data"]:
        expires = datetime.fromisoformat(minted["url_expires_at"].replace("Z", "+00:00"))
        assert expires == now + timedelta(minutes=15)
        assert minted["url"].startswith(api.url + "/images/")


def test_signed_url_serves_a_real_png_without_authentication(api: Api) -> None:
    refs = _social_refs(api)[:2]
    urls = [m["url"] for m in _mint(api, refs).json()["data"]]
    images = []
    for url in urls:
        response = api.http.get(url)
        assert response.status_code == 200
        assert response.headers["content-type"] == "image/png"
        width, height, raw = _pixels(response.content)
        assert (width, height) == (480, 270)
        assert len(raw) == height * (1 + width * 3)
        images.append(response.content)
    assert images[0] != images[1]


def test_expired_signed_url_answers_403(api: Api) -> None:
    url = _mint(api, _social_refs(api)[:1]).json()["data"][0]["url"]
    api.clock.advance(14 * 60 + 59)
    assert api.http.get(url).status_code == 200
    api.clock.advance(2)
    response = api.http.get(url)
    assert response.status_code == 403
    assert codes(response) == ["forbidden"]


def test_references_have_the_shape_of_real_opaque_ids(api: Api) -> None:
    refs = _social_refs(api)
    assert refs
    for ref in refs:
        image_id = ref.removeprefix("image:")
        assert ref.startswith("image:") and len(ref) > 64
        assert {":", "/", "="} <= set(image_id)
        assert image_id != image_id.lower() and image_id != image_id.upper()
    assert len(set(refs)) == len(refs)


def test_a_reference_is_matched_exactly_never_by_a_prefix_or_case(api: Api) -> None:
    ref = _social_refs(api)[0]
    assert _mint(api, [ref]).status_code == 200
    for near in (ref[:-1], ref + "=", ref.swapcase().replace("IMAGE:", "image:"), ref[:40]):
        response = _mint(api, [near])
        assert response.status_code == 404, near
        assert codes(response) == ["asset_not_found"]


def test_a_well_formed_reference_is_up_to_1024_characters_after_the_prefix(api: Api) -> None:
    # Unknown but well-formed: 404 asset_not_found (design §4); one character more is
    # malformed: 422 validation_error.
    at_limit = "image:" + "Ab:/=" * 204 + "Zz=z"
    assert len(at_limit) == len("image:") + 1024
    response = _mint(api, [at_limit])
    assert response.status_code == 404
    assert codes(response) == ["asset_not_found"]
    over = _mint(api, [at_limit + "x"])
    assert over.status_code == 422
    assert codes(over) == ["validation_error"]


def test_tampered_signed_url_answers_403(api: Api) -> None:
    first, second = _social_refs(api)[:2]
    url = _mint(api, [first]).json()["data"][0]["url"]
    other_url = _mint(api, [second]).json()["data"][0]["url"]
    other_id = other_url.partition("?")[0].rsplit("/", 1)[1].removesuffix(".png")
    base, _, query = url.partition("?")
    expires = query.split("&")[0].split("=")[1]
    tampered = [
        url[:-1] + ("0" if url[-1] != "0" else "1"),
        url.replace(f"expires={expires}", f"expires={int(expires) + 60_000}"),
        base.rsplit("/", 1)[0] + f"/{other_id}.png?{query}",
        base,
    ]
    for bad in tampered:
        assert api.http.get(bad).status_code == 403, bad


def test_minting_unknown_or_other_tenants_refs_is_404_asset_not_found(api: Api) -> None:
    second = api.demo.second
    other_machine = api.bearer(api.exchange(second.client_id, second.client_secret))
    foreign = _social_refs(api, headers=other_machine)[0]
    mine = _social_refs(api)[0]
    unknown = ["image:doesnotexist", "image:Sbx:v2:Tn00000000/Img/AbCdEf+/Gh==", "image:a:b"]
    for refs in ([mine, foreign], *[[u] for u in unknown]):
        response = _mint(api, refs)
        assert response.status_code == 404
        assert codes(response) == ["asset_not_found"]
    assert _mint(api, [foreign], headers=other_machine).status_code == 200


def test_minting_malformed_refs_is_422(api: Api) -> None:
    mine = _social_refs(api)[0]
    malformed = (["video:abc"], ["abc"], [mine, "image:"], [7], ["image:has space"], ["Image:x"])
    for refs in ([], [mine] * 101, *malformed):
        response = _mint(api, refs)  # type: ignore[arg-type]
        assert response.status_code == 422, refs
        assert codes(response) == ["validation_error"]
    assert _mint(api, [mine] * 100).status_code == 200


def test_reference_does_not_change_when_a_url_is_minted_again(api: Api) -> None:
    ref = _social_refs(api)[0]
    first = _mint(api, [ref]).json()["data"][0]
    api.clock.advance(30)
    again = _mint(api, [ref]).json()["data"][0]
    assert first["ref"] == again["ref"] == ref
    assert first["url"] != again["url"]
    assert api.http.get(first["url"]).status_code == 200


def test_alt_text_is_generated_in_the_content_locale(api: Api, sandbox: Sandbox) -> None:
    second = api.demo.second
    headers = api.bearer(api.exchange(second.client_id, second.client_secret))
    sets = api.http.get("/v1/suggestion-sets", headers=headers).json()["data"]
    alts = [
        s["payload"]["asset"]["alt_text"]
        for found in sets
        for s in found["suggestions"]
        if s["kind"] == "social_single_image"
    ]
    assert alts
    assert all("Illustration zu" in alt for alt in alts)
    assert all(found["locale"] == "de" for found in sets)
