#include "core/import/sqlite/sqlite_schema.h"

#include "core/import/sqlite/sqlite_db.h"
#include "core/import/sqlite/sqlite_pages.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace ls {
namespace {

struct Token {
    enum Kind { Word, Quoted, Punct, End } kind = End;
    std::string text;          // a quoted name without its quotes; a punctuation character
    size_t begin = 0, end = 0; // where it is in the statement
};

bool isWordChar(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

bool equalsNoCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::toupper(static_cast<unsigned char>(x)) ==
                      std::toupper(static_cast<unsigned char>(y));
           });
}

// SQLite's tokens, as far as a CREATE TABLE needs them: comments skipped, quoted names unquoted.
class Lexer {
  public:
    explicit Lexer(std::string_view sql) : s_(sql) {}

    // False on an unterminated quote.
    bool next(Token& t) {
        skipSpaceAndComments();
        t.text.clear();
        t.begin = i_;
        if (i_ >= s_.size()) {
            t.kind = Token::End;
            return true;
        }
        const char c = s_[i_];
        if (c == '"' || c == '`' || c == '\'' || c == '[') {
            const char close = c == '[' ? ']' : c;
            t.kind = Token::Quoted;
            for (++i_;; ++i_) {
                if (i_ >= s_.size()) return false;
                if (s_[i_] != close) {
                    t.text += s_[i_];
                    continue;
                }
                if (close != ']' && i_ + 1 < s_.size() && s_[i_ + 1] == close) { // a doubled quote
                    t.text += close;
                    ++i_;
                    continue;
                }
                t.end = ++i_;
                return true;
            }
        }
        if (isWordChar(static_cast<unsigned char>(c))) {
            t.kind = Token::Word;
            while (i_ < s_.size() && isWordChar(static_cast<unsigned char>(s_[i_])))
                t.text += s_[i_++];
            t.end = i_;
            return true;
        }
        t.kind = Token::Punct;
        t.text = c;
        t.end = ++i_;
        return true;
    }

  private:
    void skipSpaceAndComments() {
        for (;;) {
            while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
            if (s_.substr(i_, 2) == "--") {
                const size_t nl = s_.find('\n', i_);
                i_ = nl == std::string_view::npos ? s_.size() : nl + 1;
            } else if (s_.substr(i_, 2) == "/*") {
                const size_t close = s_.find("*/", i_ + 2);
                // SQLite ends an unterminated block comment at the end of the text
                i_ = close == std::string_view::npos ? s_.size() : close + 2;
            } else {
                return;
            }
        }
    }

    std::string_view s_;
    size_t i_ = 0;
};

bool isWord(const Token& t, std::string_view w) {
    return t.kind == Token::Word && equalsNoCase(t.text, w);
}
bool isPunct(const Token& t, char c) {
    return t.kind == Token::Punct && t.text.size() == 1 && t.text[0] == c;
}

bool startsConstraint(const Token& t) {
    static constexpr std::string_view kWords[] = {"CONSTRAINT", "PRIMARY",   "NOT",     "NULL",
                                                  "UNIQUE",     "CHECK",     "DEFAULT", "COLLATE",
                                                  "REFERENCES", "GENERATED", "AS"};
    return t.kind == Token::Word &&
           std::any_of(std::begin(kWords), std::end(kWords),
                       [&](std::string_view w) { return equalsNoCase(t.text, w); });
}

// The tokens of one column definition or table constraint, up to the comma or closing
// parenthesis that ends it at depth 0 (left in `end`).
bool readItem(Lexer& lex, std::vector<Token>& item, Token& end) {
    item.clear();
    int depth = 0;
    for (Token t;;) {
        if (!lex.next(t) || t.kind == Token::End) return false;
        if (depth == 0 && (isPunct(t, ',') || isPunct(t, ')'))) {
            end = std::move(t);
            return true;
        }
        if (isPunct(t, '(')) ++depth;
        if (isPunct(t, ')')) --depth;
        item.push_back(std::move(t));
    }
}

bool isName(const Token& t) { return t.kind == Token::Word || t.kind == Token::Quoted; }

// A table constraint; PRIMARY KEY (a, b) numbers its columns.
bool applyTableConstraint(const std::vector<Token>& item, std::vector<SchemaColumn>& columns) {
    size_t i = 0;
    if (isWord(item[i], "CONSTRAINT")) i += 2;
    if (i >= item.size()) return false;
    if (!isWord(item[i], "PRIMARY"))
        return true; // UNIQUE, CHECK, FOREIGN KEY: nothing stored differently
    if (i + 2 >= item.size() || !isWord(item[i + 1], "KEY") || !isPunct(item[i + 2], '('))
        return false;
    int position = 0;
    for (i += 3; i < item.size() && !isPunct(item[i], ')'); ++i) {
        if (!isName(item[i])) continue; // ASC, DESC, COLLATE x and commas
        if (isWord(item[i], "ASC") || isWord(item[i], "DESC") || isWord(item[i], "COLLATE")) {
            if (isWord(item[i], "COLLATE")) ++i;
            continue;
        }
        const auto it = std::find_if(columns.begin(), columns.end(), [&](const SchemaColumn& c) {
            return equalsNoCase(c.name, item[i].text);
        });
        if (it == columns.end() || it->primaryKey) return false; // a column twice: left to SQLite
        it->primaryKey = ++position;
    }
    return position > 0;
}

bool isTableConstraint(const Token& t) {
    return isWord(t, "CONSTRAINT") || isWord(t, "PRIMARY") || isWord(t, "UNIQUE") ||
           isWord(t, "CHECK") || isWord(t, "FOREIGN");
}

std::optional<SchemaColumn> parseColumn(std::string_view sql, const std::vector<Token>& item) {
    if (item.empty() || !isName(item[0])) return std::nullopt;
    SchemaColumn c;
    c.name = item[0].text;
    size_t i = 1;
    while (i < item.size() && !startsConstraint(item[i])) ++i;
    if (i > 1 && item[1].kind == Token::Quoted)
        return std::nullopt; // SQLite dequotes such a type its own way
    if (i > 1)
        c.type = sql.substr(item[1].begin,
                            item[i - 1].end - item[1].begin); // as written, as SQLite keeps it
    // except the standard names, which SQLite spells in capitals whatever their case
    static constexpr std::string_view kStandard[] = {"ANY",     "BLOB", "INT",
                                                     "INTEGER", "REAL", "TEXT"};
    for (std::string_view standard : kStandard)
        if (equalsNoCase(c.type, standard)) c.type = standard;
    // Constraints at depth 0 only: CHECK (CAST(x AS INT)) holds no generated column.
    for (int depth = 0; i < item.size(); ++i) {
        if (isPunct(item[i], '('))
            ++depth;
        else if (isPunct(item[i], ')'))
            --depth;
        if (depth != 0) continue;
        if (isWord(item[i], "DEFAULT"))
            c.hasDefault |= !isWord(item[i - 1], "SET"); // ON DELETE SET DEFAULT is a foreign key's
        else if (isWord(item[i], "GENERATED") || isWord(item[i], "AS"))
            return std::nullopt; // not stored as listed
        else if (isWord(item[i], "PRIMARY") && i + 1 < item.size() && isWord(item[i + 1], "KEY")) {
            c.primaryKey = 1;
            c.descendingKey = i + 2 < item.size() && isWord(item[i + 2], "DESC");
        }
    }
    return c;
}

} // namespace

int ParsedTable::rowidAlias() const {
    if (withoutRowid) return -1;
    int keys = 0, alias = -1;
    for (size_t i = 0; i < columns.size(); ++i) {
        if (!columns[i].primaryKey) continue;
        ++keys;
        if (equalsNoCase(columns[i].type, "INTEGER") && !columns[i].descendingKey)
            alias = static_cast<int>(i);
    }
    return keys == 1 ? alias : -1;
}

std::optional<ParsedTable> parseCreateTable(std::string_view sql) {
    Lexer lex(sql);
    Token t;
    const auto next = [&] { return lex.next(t); };
    if (!next() || !isWord(t, "CREATE") || !next()) return std::nullopt;
    if (isWord(t, "TEMP") || isWord(t, "TEMPORARY"))
        if (!next()) return std::nullopt;
    if (!isWord(t, "TABLE") || !next()) return std::nullopt;
    if (isWord(t, "IF")) { // IF NOT EXISTS
        if (!next() || !isWord(t, "NOT") || !next() || !isWord(t, "EXISTS") || !next())
            return std::nullopt;
    }
    if (!isName(t) || !next()) return std::nullopt;
    if (isPunct(t, '.')) { // schema.table
        if (!next() || !isName(t) || !next()) return std::nullopt;
    }
    if (!isPunct(t, '(')) return std::nullopt; // AS SELECT …
    ParsedTable table;
    std::vector<Token> item;
    bool constraints = false; // column definitions come first, table constraints after
    for (Token end;;) {
        if (!readItem(lex, item, end) || item.empty()) return std::nullopt;
        constraints |= isTableConstraint(item[0]);
        if (constraints) {
            if (!applyTableConstraint(item, table.columns)) return std::nullopt;
        } else {
            auto column = parseColumn(sql, item);
            if (!column) return std::nullopt;
            table.columns.push_back(std::move(*column));
        }
        if (isPunct(end, ')')) break;
    }
    // Table options: WITHOUT ROWID, STRICT, separated by commas.
    for (;;) {
        if (!next()) return std::nullopt;
        if (t.kind == Token::End || isPunct(t, ';')) break;
        if (isWord(t, "WITHOUT")) {
            if (!next() || !isWord(t, "ROWID")) return std::nullopt;
            table.withoutRowid = true;
        } else if (!isWord(t, "STRICT") && !isPunct(t, ',')) {
            return std::nullopt;
        }
    }
    if (table.columns.empty()) return std::nullopt;
    return table;
}

SqliteSchema SqliteSchema::fromPages(const std::shared_ptr<const SqlitePages>& pages) {
    SqliteSchema s;
    // sqlite_master: type, name, tbl_name, rootpage, sql; its b-tree is rooted at page 1.
    TableScan scan(pages, TableLayout{1, {0, 1, 3, 4}});
    scan.range(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    while (scan.step())
        s.entries_.push_back({std::string(scan.text(1)), std::string(scan.text(0)),
                              std::string(scan.text(3)), scan.int64(2)});
    s.index();
    return s;
}

SqliteSchema SqliteSchema::fromDatabase(const Database& db) {
    SqliteSchema s;
    Statement st(db.handle(), "SELECT name, type, sql, rootpage FROM sqlite_master");
    while (st.step())
        s.entries_.push_back({std::string(st.text(0)), std::string(st.text(1)),
                              std::string(st.text(2)), st.int64(3)});
    s.index();
    return s;
}

void SqliteSchema::index() {
    std::sort(entries_.begin(), entries_.end(),
              [](const Entry& a, const Entry& b) { return a.name < b.name; });
    for (const auto& e : entries_)
        if (e.type == "table" || e.type == "view") tables_.insert(e.name);
}

const SqliteSchema::Entry* SqliteSchema::find(std::string_view name) const {
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                                     [](const Entry& e, std::string_view n) { return e.name < n; });
    return it != entries_.end() && it->name == name ? &*it : nullptr;
}

} // namespace ls
