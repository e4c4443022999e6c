package dev.gitopshq.activities.policy;

/** Another what-if is running on this hub; what-ifs run one at a time. Try again shortly. */
public class WhatIfBusyException extends RuntimeException {
  public WhatIfBusyException(String message) {
    super(message);
  }
}
