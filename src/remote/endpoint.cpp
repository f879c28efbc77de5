// SPDX-License-Identifier: MIT OR Apache-2.0
#include "remote/endpoint.h"

#include <arpa/inet.h>

#include "core/core.h"

namespace gp {

namespace {

std::string trim(const std::string &s) {
    size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

bool is_ipv4(const std::string &h) {
    in_addr a;
    return inet_pton(AF_INET, h.c_str(), &a) == 1;
}

bool is_ipv6(const std::string &h) {
    in6_addr a;
    return inet_pton(AF_INET6, h.c_str(), &a) == 1;
}

Endpoint parse_one(const std::string &text) {
    Endpoint e;
    e.text = text;
    std::string s = text;
    if (s.rfind("unix:", 0) == 0) s = s.substr(5);
    else if (s.find('/') == std::string::npos && s.find(':') != std::string::npos) {
        // HOST:PORT or [V6]:PORT
        const size_t colon = s.rfind(':');
        std::string host = s.substr(0, colon), port = s.substr(colon + 1);
        if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
        if (host.empty() || port.empty() || port.find_first_not_of("0123456789") != std::string::npos ||
            port.size() > 5 || std::stoul(port) > 65535)
            fail(GP_ERR_INVALID_ARGUMENT, "endpoint \"", text, "\" is neither a unix socket path nor HOST:PORT");
        e.host = host;
        e.port = port;
        e.loopback = host == "localhost" || host == "::1" || (is_ipv4(host) && host.rfind("127.", 0) == 0);
        if (is_ipv4(host)) e.target = "ipv4:" + host + ":" + port;
        else if (is_ipv6(host)) e.target = "ipv6:[" + host + "]:" + port;
        else e.target = "dns:///" + host + ":" + port;  // every address of the name
        return e;
    }
    if (s.empty()) fail(GP_ERR_INVALID_ARGUMENT, "endpoint \"", text, "\" names no socket");
    e.is_unix = true;
    e.loopback = true;
    e.path = s;
    e.target = "unix:" + s;
    return e;
}

}  // namespace

std::vector<Endpoint> parse_endpoints(const std::string &s) {
    std::vector<Endpoint> out;
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t comma = s.find(',', pos);
        if (comma == std::string::npos) comma = s.size();
        const std::string part = trim(s.substr(pos, comma - pos));
        if (!part.empty()) out.push_back(parse_one(part));
        pos = comma + 1;
    }
    if (out.empty()) fail(GP_ERR_INVALID_ARGUMENT, "endpoint \"", s, "\" names no server");
    return out;
}

std::string shared_target(const std::vector<Endpoint> &eps) {
    if (eps.size() < 2) return "";
    bool v4 = true, v6 = true;
    for (const Endpoint &e : eps) {
        v4 = v4 && !e.is_unix && is_ipv4(e.host);
        v6 = v6 && !e.is_unix && is_ipv6(e.host);
    }
    if (!v4 && !v6) return "";
    std::string t = v4 ? "ipv4:" : "ipv6:";
    for (size_t i = 0; i < eps.size(); ++i) {
        if (i) t += ",";
        t += v4 ? eps[i].host + ":" + eps[i].port : "[" + eps[i].host + "]:" + eps[i].port;
    }
    return t;
}

}  // namespace gp
