#include "actors/failure.hpp"

#include <caf/all.hpp>

#include <atomic>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include <spdlog/logger.h>

#include "messages/interfaces.hpp"

namespace adarl {

void report_exceptions(caf::scheduled_actor* self, const char* name) {
  self->set_exception_handler([name](caf::scheduled_actor*, std::exception_ptr& e) -> caf::error {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      what = "out of memory (std::bad_alloc)";
    } catch (const std::exception& x) {
      what = x.what();
    } catch (...) {
    }
    return caf::make_error(caf::sec::runtime_error, std::string(name) + ": " + what);
  });
}

logger_ptr log_failures_end_run(const logger_ptr& log, const caf::actor& supervisor) {
  auto copy = log->clone(log->name());
  auto told = std::make_shared<std::atomic<bool>>(false);
  copy->set_error_handler([supervisor, told](const std::string& what) {
    if (!told->exchange(true))
      caf::anon_send(supervisor, stop_atom::value, "log: " + what);
  });
  return copy;
}

std::string error_text(const caf::actor_system& sys, const caf::error& e) {
  const caf::message& context = e.context();
  if (context.size() == 1 && context.match_element<std::string>(0))
    return context.get_as<std::string>(0);
  return sys.render(e);
}

}  // namespace adarl
