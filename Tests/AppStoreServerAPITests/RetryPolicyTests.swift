import AppStoreServerAPI
import Foundation
import Testing

@Suite("Retry-After and backoff")
struct RetryPolicyTests {
    let now = Date(timeIntervalSince1970: 1_748_736_000)

    @Test("Apple's Retry-After is a UNIX time in milliseconds: the wait is until then")
    func milliseconds() {
        #expect(RetryPolicy.retryAfter("1748736002500", now: now) == 2.5)
        // A time already passed asks for no wait.
        #expect(RetryPolicy.retryAfter("1748735990000", now: now) == 0)
        // Never more than a minute at once.
        #expect(RetryPolicy.retryAfter("1748739600000", now: now) == 60)
        // A number too long for 64 bits is "later than any wait", not a crash.
        #expect(RetryPolicy.retryAfter(String(repeating: "9", count: 40), now: now) == 60)
    }

    @Test("RFC 9110's delta-seconds and HTTP-date are accepted too")
    func rfc9110Forms() {
        #expect(RetryPolicy.retryAfter("7", now: now) == 7)
        #expect(RetryPolicy.retryAfter(" 12 ", now: now) == 12)
        #expect(RetryPolicy.retryAfter("3600", now: now) == 60)
        let date = RetryPolicy.httpDateText(now.addingTimeInterval(30))
        #expect(date == "Sun, 01 Jun 2025 00:00:30 GMT")
        #expect(RetryPolicy.retryAfter(date, now: now) == 30)
    }

    @Test(
        "values of no known form are refused, so the client backs off instead",
        arguments: [
            "", "soon", "-5", "1.5", "Sun, 32 Jun 2025 00:00:30 GMT", "Sun, 01 Foo 2025 00:00:30 GMT",
        ])
    func unusable(_ value: String) {
        #expect(RetryPolicy.retryAfter(value, now: now) == nil)
    }

    @Test("backoff doubles from one second, is scaled by jitter from 0.5 to 1, and stops at a minute")
    func backoff() {
        let policy = RetryPolicy(retries: 3)
        #expect(policy.backoff(attempt: 1, jitter: 1) == 1)
        #expect(policy.backoff(attempt: 2, jitter: 1) == 2)
        #expect(policy.backoff(attempt: 3, jitter: 0.5) == 2)
        #expect(policy.backoff(attempt: 30, jitter: 1) == 60)
        // Jitter outside its range is clamped.
        #expect(policy.backoff(attempt: 1, jitter: 0) == 0.5)
    }
}

@Suite("Base URLs")
struct BaseURLTests {
    @Test(
        "https anywhere; plain http only to loopback",
        arguments: [
            ("https://api.storekit.apple.com", true), ("https://proxy.example.com:8443/", true),
            ("http://127.0.0.1:8080", true), ("http://localhost:1", true), ("http://[::1]:9", true),
            ("http://127.1.2.3", true), ("http://api.storekit.apple.com", false), ("http://10.0.0.1", false),
            ("http://127.0.0.1.example.com", false), ("ftp://127.0.0.1", false), ("api.storekit.apple.com", false),
            ("https://user:pw@host", false), ("https://host/?q=1", false),
        ])
    func loopbackOnly(_ url: String, _ allowed: Bool) {
        let parsed = BaseURL.parse(url)
        if case .success = parsed { #expect(allowed) } else { #expect(!allowed) }
    }

    @Test("a trailing slash is dropped, so paths join cleanly")
    func trailingSlash() throws {
        #expect(try BaseURL.parse("https://proxy.example.com/").get().text == "https://proxy.example.com")
    }
}
